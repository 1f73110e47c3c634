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
//! told `sslmode=disable` and never uses it.

use std::path::Path;
use std::sync::Arc;

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

/// The connector for `tls`. A root certificate that cannot be read or holds no certificate
/// is the URL's fault: a validation error on `--db`.
pub fn connector(tls: &Tls) -> Result<MakeRustlsConnect, Error> {
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
    Ok(MakeRustlsConnect::new(config))
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
