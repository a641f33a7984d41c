package io.lgc4j.runner.config;

import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The one error of the configuration layer: a bad key, a bad value, malformed YAML or a missing file. Unchecked: it
 * reports a mistake in the input that no caller can repair, only show, and records built in code throw it from
 * their constructors like any argument check. The message is the whole report: it starts with the file name when
 * the problem came from a file ({@link ConfigLoader} adds it) and names a key by its dotted path:
 * {@code configs/x.yaml: key 'training.workers' must be >= 1, found 0}.
 *
 * <pre>{@code
 * try {
 *     ExperimentConfig config = ConfigLoader.load(Path.of("configs/quickstart.yaml"));
 * } catch (ConfigException e) {
 *     System.err.println(e.getMessage());   // already says which file and which key
 * }
 * }</pre>
 */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The file the problem was found in; null for a record built in code. */
    private final String source;
    /** The dotted key path; null when the problem is about the whole file. */
    private final String keyPath;
    /** The message without the source prefix. */
    private final String detail;

    private ConfigException(String source, String keyPath, String detail, Throwable cause) {
        super(source == null ? detail : source + ": " + detail, cause);
        this.source = source;
        this.keyPath = keyPath;
        this.detail = detail;
    }

    /**
     * A problem with the value of one key.
     *
     * @param keyPath the dotted path of the key, e.g. {@code training.workers}
     * @param problem what is wrong, e.g. {@code must be >= 1, found 0}
     * @return an exception whose message is {@code key '<keyPath>' <problem>}
     */
    public static ConfigException forKey(String keyPath, String problem) {
        Objects.requireNonNull(keyPath, "keyPath");
        Objects.requireNonNull(problem, "problem");
        return new ConfigException(null, keyPath, "key '" + keyPath + "' " + problem, null);
    }

    /** A problem about a key whose message does not follow the {@code key '...' ...} form (unknown keys). */
    static ConfigException withDetail(String keyPath, String detail) {
        return new ConfigException(null, keyPath, detail, null);
    }

    /**
     * A key the configuration does not have: {@code unknown key 'compressor.bost'; allowed keys under 'compressor':
     * a, b, ...}, or {@code ... allowed keys at the top level: ...} for a top-level key.
     *
     * @param keyPath the dotted path of the key as written
     * @param allowed the keys its section has, listed in sorted order
     */
    static ConfigException unknownKey(String keyPath, Collection<String> allowed) {
        int dot = keyPath.lastIndexOf('.');
        String where = dot < 0 ? "at the top level" : "under '" + keyPath.substring(0, dot) + "'";
        return withDetail(keyPath, "unknown key '" + keyPath + "'; allowed keys " + where + ": "
                + String.join(", ", new TreeSet<>(allowed)));
    }

    /** A problem about a whole file (malformed YAML, unreadable file), with no key to name. */
    public static ConfigException forSource(String source, String detail, Throwable cause) {
        return new ConfigException(Objects.requireNonNull(source, "source"), null, detail, cause);
    }

    /**
     * The same problem, reported as found in {@code sourceName}; keeps this exception as the cause.
     *
     * @param sourceName the file name to start the message with
     * @return a new exception whose message is {@code <sourceName>: <detail>}
     */
    public ConfigException inSource(String sourceName) {
        return new ConfigException(Objects.requireNonNull(sourceName, "sourceName"), keyPath, detail, this);
    }

    /**
     * The same problem with a source and a cause, for the loader's translation of parser exceptions.
     */
    ConfigException inSource(String sourceName, Throwable cause) {
        return new ConfigException(Objects.requireNonNull(sourceName, "sourceName"), keyPath, detail, cause);
    }

    /** @return the file (or other source) the problem was found in, empty for a record built in code */
    public Optional<String> source() {
        return Optional.ofNullable(source);
    }

    /** @return the dotted path of the offending key, empty when the problem is not about one key */
    public Optional<String> keyPath() {
        return Optional.ofNullable(keyPath);
    }

    /** @return the message without the {@code <source>: } prefix */
    public String detail() {
        return detail;
    }
}
