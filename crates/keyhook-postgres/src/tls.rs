//! TLS to the server through rustls (ring), as the URL's `sslmode` asks (see [`Tls`]).
//!
//! - `require` encrypts without verifying the server's certificate, like libpq's `require`
//!   without a root certificate: it keeps the traffic (the password included) from anyone
//!   listening, not from an active man in the middle. The handshake's signature is still
//!   checked against the certificate the server sent.
//! - `verify-ca` accepts only a certificate chaining to `sslrootcert`, whatever its name.
//! - `verify-full` also wants the certificate to name the host of the URL (a DNS name or an
//!   IP address).
//!
//! One connector type serves every mode, so the pool has one type; without TLS the driver is
//! told `sslmode=disable` and never uses it. A Unix socket (a host that is a directory) has
//! no TLS in PostgreSQL: the URL refuses an `sslmode` that asks for it there (`url.rs`).

use std::path::Path;
use std::sync::Arc;

use postgres::tls::MakeTlsConnect;
use postgres::Socket;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::verify_server_cert_signed_by_trust_anchor;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::server::ParsedCertificate;
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::url::Tls;
use keyhook_core::Error;

/// rustls's connector, told whether TLS is off. The driver asks a connector for every
/// connection before it knows whether TLS will be used, naming the host; over a Unix socket
/// it names none (an empty name), which rustls refuses as a DNS name, so a socket could not
/// be used at all. With TLS off the connector is never used, and a socket gets a placeholder
/// name; with TLS on, the name goes to rustls as it is (an empty one still fails: the
/// certificate must be checked against the real name, never a placeholder).
#[derive(Clone)]
pub struct Connector {
    rustls: MakeRustlsConnect,
    off: bool,
}

impl MakeTlsConnect<Socket> for Connector {
    type Stream = <MakeRustlsConnect as MakeTlsConnect<Socket>>::Stream;
    type TlsConnect = <MakeRustlsConnect as MakeTlsConnect<Socket>>::TlsConnect;
    type Error = <MakeRustlsConnect as MakeTlsConnect<Socket>>::Error;

    fn make_tls_connect(&mut self, host: &str) -> Result<Self::TlsConnect, Self::Error> {
        let host = if host.is_empty() && self.off {
            "unix-socket.invalid"
        } else {
            host
        };
        MakeTlsConnect::<Socket>::make_tls_connect(&mut self.rustls, host)
    }
}

/// The connector for `tls`. A root certificate that cannot be read or holds no certificate
/// is the URL's fault: a validation error on `--db`.
pub fn connector(tls: &Tls) -> Result<Connector, Error> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Storage(format!("cannot set up TLS: {e}")))?;
    let config = match tls {
        Tls::Off => builder
            .with_root_certificates(RootCertStore::empty())
            .with_no_client_auth(),
        Tls::Require => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Unverified(provider)))
            .with_no_client_auth(),
        Tls::VerifyCa(root) => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AnyName {
                roots: roots(root)?,
                provider,
            }))
            .with_no_client_auth(),
        Tls::VerifyFull(root) => builder
            .with_root_certificates(roots(root)?)
            .with_no_client_auth(),
    };
    Ok(Connector {
        rustls: MakeRustlsConnect::new(config),
        off: *tls == Tls::Off,
    })
}

fn roots(path: &Path) -> Result<RootCertStore, Error> {
    let bad =
        |why: String| Error::validation("--db", format!("sslrootcert {}: {why}", path.display()));
    let pem = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
    let mut store = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&pem) {
        let cert = cert.map_err(|e| bad(format!("not a PEM certificate ({e})")))?;
        store
            .add(cert)
            .map_err(|e| bad(format!("not a usable CA certificate ({e})")))?;
    }
    if store.is_empty() {
        return Err(bad("holds no certificate".into()));
    }
    Ok(store)
}

/// `sslmode=require`: any certificate; the handshake signature must still be the
/// certificate's key's.
#[derive(Debug)]
struct Unverified(Arc<CryptoProvider>);

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `sslmode=verify-ca`: the chain must lead to one of `roots`; the name is not checked.
#[derive(Debug)]
struct AnyName {
    roots: RootCertStore,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let cert = ParsedCertificate::try_from(end_entity)?;
        verify_server_cert_signed_by_trust_anchor(
            &cert,
            &self.roots,
            intermediates,
            now,
            self.provider.signature_verification_algorithms.all,
        )?;
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let algs = &self.provider.signature_verification_algorithms;
        verify_tls12_signature(message, cert, dss, algs)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let algs = &self.provider.signature_verification_algorithms;
        verify_tls13_signature(message, cert, dss, algs)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}
