package io.lgc4j.runner;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** Versions fixed at build time (filtered from the POM): project version, DL4J version, ND4J native variant. */
public final class BuildInfo {
    private static final Properties PROPERTIES = load();

    private BuildInfo() {
    }

    /** The LGC4J version. */
    public static String version() {
        return PROPERTIES.getProperty("version", "unknown");
    }

    /** The DL4J/ND4J version. */
    public static String dl4jVersion() {
        return PROPERTIES.getProperty("dl4j.version", "unknown");
    }

    /** The ND4J native classifier built in, e.g. {@code linux-x86_64-onednn-avx2}. */
    public static String nd4jClassifier() {
        return PROPERTIES.getProperty("nd4j.classifier", "unknown");
    }

    /**
     * The ND4J native classifiers built in, e.g. {@code linux-x86_64-onednn-avx2 + linux-x86_64-onednn-avx512}: each
     * process loads the widest its CPU runs ({@link io.lgc4j.core.compute.Nd4jBuild}).
     */
    public static String nd4jClassifiers() {
        return nd4jClassifier() + " + " + PROPERTIES.getProperty("nd4j.avx512.classifier", "unknown");
    }

    private static Properties load() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("/io/lgc4j/runner/build.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read build.properties", e);
        }
        return p;
    }
}
