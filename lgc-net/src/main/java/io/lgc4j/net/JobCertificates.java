package io.lgc4j.net;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.openssl.PEMParser;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;

/**
 * A job's own certificate authority and per-host certificates for mutual TLS, for users without a PKI
 * ({@code lgc keys DIR}): {@code ca.crt} and {@code ca.key}, then {@code <host>.crt} (the host's certificate followed
 * by the CA's) and {@code <host>.key} (PKCS#8) per host; ECDSA P-256, SHA-256. Private keys are written readable by
 * their owner only. A directory that already holds a CA keeps it, so hosts can be added later.
 *
 * <pre>{@code
 * JobCertificates.create(Path.of("keys"), List.of("node1", "node2"), Duration.ofDays(365));
 * NetSettings.Tls tls = JobCertificates.tls(Path.of("keys"), "node1");   // node1.crt, node1.key, ca.crt
 * }</pre>
 */
public final class JobCertificates {
    private static final String CA_NAME = "LGC4J job CA";

    private JobCertificates() {
    }

    /**
     * Creates (or reuses) the CA in {@code dir} and issues a certificate for each of {@code hosts}, valid for
     * {@code validity}; a host name or address is also the certificate's subject alternative name.
     *
     * @return the files written
     * @throws IllegalArgumentException on an empty host list or a host name that cannot name a file
     */
    public static List<Path> create(Path dir, List<String> hosts, Duration validity) {
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException("hosts: expected at least one host name or address, found none");
        }
        for (String host : hosts) {
            if (!host.matches("[A-Za-z0-9.:_-]+")) {
                throw new IllegalArgumentException("host " + '"' + host + '"' + ": expected a host name or address"
                        + " (letters, digits, '.', ':', '_', '-')");
            }
        }
        try {
            Files.createDirectories(dir);
            List<Path> written = new ArrayList<>();
            Path caCrt = dir.resolve("ca.crt");
            Path caKey = dir.resolve("ca.key");
            KeyPair caKeys;
            X509CertificateHolder caCert;
            if (Files.exists(caCrt) && Files.exists(caKey)) {
                caKeys = readKeyPair(caKey);
                try (PEMParser p = new PEMParser(new StringReader(Files.readString(caCrt)))) {
                    caCert = (X509CertificateHolder) p.readObject();
                }
            } else {
                caKeys = ecKeys();
                X500Name subject = new X500Name("CN=" + CA_NAME);
                Instant now = Instant.now();
                caCert = new JcaX509v3CertificateBuilder(subject, serial(), Date.from(now.minus(Duration.ofHours(1))),
                        Date.from(now.plus(validity)), subject, caKeys.getPublic())
                        .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                        .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                        .build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate()));
                writePrivate(caKey, pem("PRIVATE KEY", caKeys.getPrivate().getEncoded()));
                Files.writeString(caCrt, pem("CERTIFICATE", caCert.getEncoded()));
                written.add(caCrt);
                written.add(caKey);
            }
            for (String host : hosts) {
                KeyPair keys = ecKeys();
                Instant now = Instant.now();
                GeneralName alt = isAddress(host) ? new GeneralName(GeneralName.iPAddress, host)
                        : new GeneralName(GeneralName.dNSName, host);
                X509CertificateHolder cert = new JcaX509v3CertificateBuilder(caCert.getSubject(), serial(),
                        Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(validity)),
                        new X500Name("CN=" + host), keys.getPublic())
                        .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                        .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                        .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
                                new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}))
                        .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(alt))
                        .build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate()));
                Path crt = dir.resolve(host + ".crt");
                Path key = dir.resolve(host + ".key");
                Files.writeString(crt, pem("CERTIFICATE", cert.getEncoded()) + pem("CERTIFICATE", caCert.getEncoded()));
                writePrivate(key, pem("PRIVATE KEY", keys.getPrivate().getEncoded()));
                written.add(crt);
                written.add(key);
            }
            return written;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write certificates to " + dir + ": " + e.getMessage(), e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot make certificates: " + e.getMessage(), e);
        }
    }

    /** The TLS settings of {@code host} from a directory {@link #create} wrote. */
    public static NetSettings.Tls tls(Path dir, String host) {
        return new NetSettings.Tls(dir.resolve(host + ".crt"), dir.resolve(host + ".key"), dir.resolve("ca.crt"));
    }

    private static KeyPair ecKeys() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    private static KeyPair readKeyPair(Path pkcs8) throws IOException, GeneralSecurityException {
        byte[] der = Base64.getMimeDecoder().decode(Files.readString(pkcs8)
                .replaceAll("-----[A-Z ]+-----", "").strip());
        KeyFactory f = KeyFactory.getInstance("EC");
        PrivateKey priv = f.generatePrivate(new PKCS8EncodedKeySpec(der));
        // the public key travels in the CA certificate; only the private key signs
        return new KeyPair(null, priv);
    }

    private static BigInteger serial() {
        return new BigInteger(64, new SecureRandom()).abs().add(BigInteger.ONE);
    }

    private static boolean isAddress(String host) {
        if (!host.matches("[0-9.]+|[0-9A-Fa-f:]+")) {
            return false;
        }
        try {
            InetAddress.getByName(host);
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static void writePrivate(Path file, String pem) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, pem);
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
