package io.lgc4j.runner.config;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

/** Locates the YAML fixtures under {@code src/test/resources/config/} and the shipped files under {@code configs/}. */
final class Fixtures {

    private Fixtures() {
    }

    /** A fixture file by name, as a path on disk so the loader's file-name prefix can be asserted. */
    static Path fixture(String name) {
        URL url = Fixtures.class.getResource("/config/" + name);
        if (url == null) {
            throw new IllegalArgumentException("no test fixture config/" + name);
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(url + " is not a file path", e);
        }
    }

    /** A file under the repository's {@code configs/}, found by walking up from the working directory. */
    static Path shippedConfig(String name) {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("configs").resolve(name);
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("configs/" + name + " not found above " + Path.of("").toAbsolutePath());
    }
}
