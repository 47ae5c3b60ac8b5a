package io.leaf.server.testing;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away CA and the certificates it signs, written as PEM files the way operators have them.
 */
public final class TestCertificates {

  private static final AtomicLong SERIALS = new AtomicLong(System.currentTimeMillis());

  /** A certificate, its key, and its serial number (to tell two certificates apart). */
  public record Issued(X509Certificate certificate, PrivateKey key) {
    public BigInteger serial() {
      return certificate.getSerialNumber();
    }

    /** Writes the certificate and the PKCS#8 key as PEM. */
    public void writeTo(Path certFile, Path keyFile) throws IOException {
      Files.writeString(certFile, pem(certificate));
      Files.writeString(keyFile, pem(new JcaPKCS8Generator(key, null)));
    }
  }

  private final Issued ca;
  private final X500Name caName;

  public TestCertificates(String name) throws Exception {
    KeyPair keys = keyPair();
    X500Name subject = new X500Name("CN=" + name);
    caName = subject;
    X509v3CertificateBuilder b = builder(subject, subject, keys);
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
    ca = new Issued(sign(b, keys.getPrivate()), keys.getPrivate());
  }

  public Issued ca() {
    return ca;
  }

  /** A certificate for {@code localhost} and 127.0.0.1, signed by this CA. */
  public Issued issue(String commonName) throws Exception {
    return issue(commonName, false);
  }

  /**
   * As {@link #issue}, with the extended key usage serverAuth alone (as many server certificates
   * have): it cannot authenticate a client.
   */
  public Issued issueServerAuthOnly(String commonName) throws Exception {
    return issue(commonName, true);
  }

  private Issued issue(String commonName, boolean serverAuthOnly) throws Exception {
    KeyPair keys = keyPair();
    X509v3CertificateBuilder b = builder(caName, new X500Name("CN=" + commonName), keys);
    b.addExtension(
        Extension.subjectAlternativeName,
        false,
        new GeneralNames(
            new GeneralName[] {
              new GeneralName(GeneralName.dNSName, "localhost"),
              new GeneralName(GeneralName.iPAddress, "127.0.0.1")
            }));
    if (serverAuthOnly) {
      b.addExtension(
          Extension.extendedKeyUsage,
          false,
          new org.bouncycastle.asn1.x509.ExtendedKeyUsage(
              org.bouncycastle.asn1.x509.KeyPurposeId.id_kp_serverAuth));
    }
    return new Issued(sign(b, ca.key()), keys.getPrivate());
  }

  public void writeCa(Path file) throws IOException {
    Files.writeString(file, pem(ca.certificate()));
  }

  private static KeyPair keyPair() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(256);
    return g.generateKeyPair();
  }

  private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(
        issuer,
        BigInteger.valueOf(SERIALS.incrementAndGet()),
        Date.from(now.minus(Duration.ofHours(1))),
        Date.from(now.plus(Duration.ofDays(1))),
        subject,
        keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey signer)
      throws Exception {
    return new JcaX509CertificateConverter()
        .getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer)));
  }

  private static String pem(Object o) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(o);
    }
    return out.toString();
  }
}
