//! Target safety: webhook deliveries must not reach loopback, private,
//! link-local, shared (CGNAT), multicast, reserved or unspecified addresses, nor the IPv6 forms
//! that smuggle such an IPv4 address, unless private targets are explicitly allowed.
//!
//! Two checks use [`is_forbidden`]: [`check_url_host`] at creation for IP-literal hosts, and
//! the delivery client's resolver after DNS resolution, whose vetted addresses are the ones
//! connected to (so a DNS answer that changes between the check and the connect cannot get
//! around it).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use url::Host;

/// The message for a webhook URL whose literal host is refused.
pub const FORBIDDEN_TARGET_MESSAGE: &str =
    "must not point to a private, loopback or link-local address (allowed only when keyhook \
     runs with --allow-private-targets)";

/// Whether a delivery to `ip` is refused when private targets are not allowed.
pub fn is_forbidden(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_forbidden_v4(v4),
        IpAddr::V6(v6) => is_forbidden_v6(v6),
    }
}

fn is_forbidden_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    a == 0                                   // 0.0.0.0/8 "this network", incl. unspecified
        || a == 10                           // 10.0.0.0/8 RFC 1918
        || (a == 100 && (b & 0xc0) == 64)    // 100.64.0.0/10 CGNAT shared space
        || a == 127                          // 127.0.0.0/8 loopback
        || (a == 169 && b == 254)            // 169.254.0.0/16 link-local, cloud metadata
        || (a == 172 && (b & 0xf0) == 16)    // 172.16.0.0/12 RFC 1918
        || (a == 192 && b == 0 && c == 0)    // 192.0.0.0/24 IETF protocol assignments
        || (a == 192 && b == 168)            // 192.168.0.0/16 RFC 1918
        || (a == 198 && (b & 0xfe) == 18)    // 198.18.0.0/15 benchmarking
        || a >= 224 // 224/4 multicast, 240/4 reserved, 255.255.255.255 broadcast
}

fn is_forbidden_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    let embedded = |hi: u16, lo: u16| {
        let [a, b] = hi.to_be_bytes();
        let [c, d] = lo.to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    };
    if s[..6] == [0; 6] {
        // ::/96: unspecified ::, loopback ::1 and the deprecated IPv4-compatible addresses.
        return true;
    }
    if s[..5] == [0; 5] && s[5] == 0xffff {
        // ::ffff:0:0/96 IPv4-mapped: always refused, whatever the IPv4 address.
        return true;
    }
    match s[0] {
        x if x & 0xfe00 == 0xfc00 => true, // fc00::/7 unique local
        x if x & 0xffc0 == 0xfe80 => true, // fe80::/10 link-local
        x if x & 0xffc0 == 0xfec0 => true, // fec0::/10 deprecated site-local
        x if x & 0xff00 == 0xff00 => true, // ff00::/8 multicast
        // 64:ff9b::/96 NAT64: the IPv4 address sits in the last 32 bits.
        0x0064 if s[1] == 0xff9b && s[2..6] == [0; 4] => is_forbidden_v4(embedded(s[6], s[7])),
        // 2002::/16 6to4: the IPv4 address sits in bits 16..48.
        0x2002 => is_forbidden_v4(embedded(s[1], s[2])),
        _ => false,
    }
}

/// Creation-time check of a webhook URL: an IP-literal host must not be forbidden. Domain
/// names pass here; their addresses are checked when a delivery resolves them.
pub fn check_url_host(url: &url::Url) -> Result<(), String> {
    let forbidden = match url.host() {
        Some(Host::Ipv4(ip)) => is_forbidden(IpAddr::V4(ip)),
        Some(Host::Ipv6(ip)) => is_forbidden(IpAddr::V6(ip)),
        Some(Host::Domain(_)) | None => false,
    };
    if forbidden {
        Err(FORBIDDEN_TARGET_MESSAGE.to_string())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn forbidden_ipv4() {
        for s in [
            "127.0.0.1",
            "127.255.255.254",
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "10.255.255.255",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.0.1",
            "192.168.255.255",
            "169.254.0.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.255",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "250.1.2.3",
            "255.255.255.255",
            "192.0.0.1",
            "192.0.0.255",
            "198.18.0.1",
            "198.19.255.255",
        ] {
            assert!(is_forbidden(ip(s)), "{s} should be forbidden");
        }
    }

    #[test]
    fn forbidden_ipv6() {
        for s in [
            "::",
            "::1",
            "fc00::1",
            "fd12:3456:789a::1",
            "fe80::1",
            "febf:ffff::1",
            "fec0::1",
            "ff02::1",
            "ff0e::1",
            // IPv4-mapped: always, even for a public IPv4 address.
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "::ffff:8.8.8.8",
            // IPv4-compatible (::/96).
            "::127.0.0.1",
            "::8.8.8.8",
            // NAT64 and 6to4 embedding a forbidden IPv4 address.
            "64:ff9b::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b::10.1.2.3",
            "2002:7f00:1::",
            "2002:a9fe:a9fe::1",
            "2002:c0a8:0101::",
        ] {
            assert!(is_forbidden(ip(s)), "{s} should be forbidden");
        }
    }

    #[test]
    fn public_addresses_are_allowed() {
        for s in [
            "8.8.8.8",
            "1.1.1.1",
            "93.184.216.34",
            "9.255.255.255",
            "11.0.0.1",
            "100.63.255.255",
            "100.128.0.1",
            "169.253.1.1",
            "172.15.255.255",
            "172.32.0.1",
            "192.0.1.1",
            "192.169.0.1",
            "198.17.255.255",
            "198.20.0.1",
            "223.255.255.255",
            "2606:4700::1111",
            "2001:4860:4860::8888",
            "64:ff9b::8.8.8.8",
            "2002:0808:0808::1",
            "fbff::1",
            "fe00::1",
        ] {
            assert!(!is_forbidden(ip(s)), "{s} should be allowed");
        }
    }

    #[test]
    fn url_host_literals_and_names() {
        let check = |s: &str| check_url_host(&url::Url::parse(s).unwrap());
        for bad in [
            "http://127.0.0.1/hook",
            "http://127.0.0.1:8080/",
            "https://10.1.2.3/",
            "http://169.254.169.254/latest/meta-data/",
            "http://[::1]:9000/",
            "http://[::ffff:7f00:1]/",
            "http://[fe80::1]/",
            "http://0.0.0.0/",
            // The URL parser normalises these IPv4 spellings to 127.0.0.1.
            "http://2130706433/",
            "http://0x7f.1/",
        ] {
            assert_eq!(check(bad).unwrap_err(), FORBIDDEN_TARGET_MESSAGE, "{bad}");
        }
        for ok in [
            "https://example.com/hook",
            "http://localhost:8080/",
            "https://internal.corp/",
            "http://93.184.216.34/",
            "https://[2606:4700::1111]/",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
    }
}
