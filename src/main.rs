fn main() {
    std::process::exit(keyhook::cli::main());
}
