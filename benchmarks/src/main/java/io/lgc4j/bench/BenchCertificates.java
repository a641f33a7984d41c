package io.lgc4j.bench;

import io.lgc4j.net.NetSettings;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;

/**
 * A throw-away job CA and one certificate per endpoint for lgc-net's mutual TLS, made in the JVM with BouncyCastle
 * (no {@code openssl} needed): EC P-256 keys, ECDSA-SHA256 signatures, valid for a day, written as the PEM files
 * {@link NetSettings.Tls} reads (certificate chain, PKCS#8 key, CA).
 *
 * <pre>{@code
 * List<NetSettings.Tls> tls = BenchCertificates.create(Files.createTempDirectory("lgc-tls"), 5);
 * }</pre>
 */
final class BenchCertificates {

    private BenchCertificates() {
    }

    /** Writes the CA and {@code endpoints} endpoint certificates into {@code dir}; one {@code Tls} per endpoint. */
    static List<NetSettings.Tls> create(Path dir, int endpoints) throws IOException {
        try {
            KeyPair caKeys = ecKeys();
            X500Name caName = new X500Name("CN=lgc bench job CA");
            Instant now = Instant.now();
            Date from = Date.from(now.minus(1, ChronoUnit.HOURS));
            Date to = Date.from(now.plus(1, ChronoUnit.DAYS));
            X509CertificateHolder ca = new JcaX509v3CertificateBuilder(caName, BigInteger.ONE, from, to, caName,
                    caKeys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate()));
            Path caPem = dir.resolve("job-ca.crt");
            Files.writeString(caPem, pem("CERTIFICATE", ca.getEncoded()));
            List<NetSettings.Tls> all = new ArrayList<>(endpoints);
            for (int e = 0; e < endpoints; e++) {
                KeyPair keys = ecKeys();
                X509CertificateHolder cert = new JcaX509v3CertificateBuilder(caName, BigInteger.valueOf(2L + e),
                        from, to, new X500Name("CN=endpoint-" + e), keys.getPublic())
                        .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                        .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                        .build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate()));
                Path chain = dir.resolve("endpoint-" + e + ".crt");
                Files.writeString(chain, pem("CERTIFICATE", cert.getEncoded()) + pem("CERTIFICATE", ca.getEncoded()));
                Path key = dir.resolve("endpoint-" + e + ".key");
                Files.writeString(key, pem("PRIVATE KEY", keys.getPrivate().getEncoded()));
                all.add(new NetSettings.Tls(chain, key, caPem));
            }
            return List.copyOf(all);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("could not make the benchmark's TLS certificates: " + e.getMessage(), e);
        }
    }

    private static KeyPair ecKeys() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
