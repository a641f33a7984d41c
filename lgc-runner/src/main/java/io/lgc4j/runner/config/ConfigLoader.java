package io.lgc4j.runner.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.util.JsonParserDelegate;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.JacksonYAMLParseException;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Reads an experiment's YAML file into a checked {@link ExperimentConfig}.
 *
 * <pre>{@code
 * ExperimentConfig config = ConfigLoader.load(Path.of("configs/quickstart.yaml"));
 * int k = config.training().workers();                        // 4
 * TopologyType topology = config.topology().type();           // RING
 *
 * ExperimentConfig inline = ConfigLoader.parse("run: {name: smoke}", "inline");   // every other key defaulted
 * }</pre>
 *
 * <p>Every failure is a {@link ConfigException} whose message starts with the file name (for {@link #parse}, the
 * given source name) and names the key at fault by its dotted path (the full list: docs/architecture/runner.md):
 * <pre>{@code
 * <file>: unknown key 'training.wrokers'; allowed keys under 'training': batchSizePerWorker, bucketBytes, ...
 * <file>: key 'training.workers' expects an integer, found "four"
 * <file>: key 'training.workers' must be >= 1, found 0
 * }</pre>
 */
public final class ConfigLoader {

    /** The largest config (or suite) file, and the longest YAML text, the loader reads: 1 MiB. */
    public static final int MAX_BYTES = 1 << 20;

    private ConfigLoader() {
    }

    /**
     * Reads and checks one config file.
     *
     * @param file a YAML file, UTF-8
     * @return the config, every absent key at its default
     * @throws ConfigException if the file is missing or unreadable, is not valid YAML, or holds an unknown key, a
     *                         value of the wrong type or out of range, or no {@code run.name}; the message starts
     *                         with {@code file} as given
     */
    public static ExperimentConfig load(Path file) {
        Objects.requireNonNull(file, "file");
        String source = file.toString();
        String yaml;
        try {
            checkFileSize(file, source);
            yaml = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw ConfigException.forSource(source, "config file not found", e);
        } catch (AccessDeniedException e) {
            throw ConfigException.forSource(source, "config file not readable: permission denied", e);
        } catch (CharacterCodingException e) {
            throw ConfigException.forSource(source, "config file is not valid UTF-8", e);
        } catch (IOException e) {
            throw ConfigException.forSource(source, "cannot read config file: " + e.getMessage(), e);
        }
        return parse(yaml, source);
    }

    /**
     * Rejects a file above {@link #MAX_BYTES} before reading it: a config is a few hundred bytes, and the YAML parser
     * takes tens of seconds over megabytes. A missing file is left to the caller's read, which reports it.
     *
     * @param file   the file about to be read
     * @param source what to call it at the start of the message
     * @throws ConfigException naming the size and the limit when the file is larger
     */
    public static void checkFileSize(Path file, String source) {
        long size;
        try {
            size = Files.size(file);
        } catch (IOException e) {
            return;
        }
        if (size > MAX_BYTES && Files.isRegularFile(file)) {
            throw ConfigException.forSource(source, "file is " + size + " bytes, above the 1 MiB limit (" + MAX_BYTES
                    + " bytes); a config is a few hundred", null);
        }
    }

    /**
     * {@code config} as the tree of its resolved YAML (every key, defaults included, enums in their spelling):
     * nested maps of strings, numbers, booleans and lists, as {@link ConfigWriter} writes them.
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> asTree(ExperimentConfig config) {
        return YamlMapping.MAPPER.convertValue(config, Map.class);
    }

    /**
     * Merges the YAML tree {@code over} into {@code into}: mappings key by key, anything else (a value, a list)
     * replaced. How a suite's method or an advise candidate lays its sections over a base config.
     */
    public static void merge(ObjectNode into, ObjectNode over) {
        for (var it = over.fields(); it.hasNext(); ) {
            var f = it.next();
            JsonNode existing = into.get(f.getKey());
            if (existing instanceof ObjectNode target && f.getValue() instanceof ObjectNode source) {
                merge(target, source);
            } else {
                into.set(f.getKey(), f.getValue().deepCopy());
            }
        }
    }

    /**
     * Reads and checks a config held in a string (tests, configs embedded in code or generated by scripts).
     *
     * @param yaml       the YAML text
     * @param sourceName what to call it at the start of error messages, typically a file name
     * @return the config, every absent key at its default
     * @throws ConfigException as for {@link #load}, with {@code sourceName} at the start of the message
     */
    public static ExperimentConfig parse(String yaml, String sourceName) {
        Objects.requireNonNull(yaml, "yaml");
        Objects.requireNonNull(sourceName, "sourceName");
        JsonNode tree = readSingleDocument(yaml, sourceName);
        JsonNode compressor = tree.path("compressor");
        if (compressor.asText("").equals("auto") || compressor.path("type").asText("").equals("auto")) {
            throw ConfigException.forSource(sourceName, "compressor: auto is chosen when a run starts (lgc run,"
                    + " lgc launch and lgc worker resolve it: io.lgc4j.advise.config.AutoRun); here the config must"
                    + " name its method", null);
        }
        try {
            return YamlMapping.MAPPER.treeToValue(tree, ExperimentConfig.class);
        } catch (ConfigException e) {
            throw e.inSource(sourceName);
        } catch (JsonProcessingException e) {
            throw translate(e, sourceName);
        }
    }

    /** Syntax first, binding second: a YAML error is reported as such, never as a confusing binding error. */
    private static JsonNode readSingleDocument(String yaml, String source) {
        JsonNode tree = readYamlTree(yaml, source);
        if (tree == null || tree.isMissingNode() || tree.isNull()) {
            // An empty file is a config with every default, which still lacks run.name.
            return YamlMapping.MAPPER.createObjectNode();
        }
        if (!tree.isObject()) {
            throw ConfigException.forSource(source, "the top level expects a mapping with keys "
                    + String.join(", ", topLevelKeys()) + ", found " + describe(tree), null);
        }
        return tree;
    }

    /**
     * Parses one YAML document into a tree, with the loader's syntax errors (line, column, duplicate keys) and no
     * check of its content; for files that embed configs, such as the table suites. An empty document gives
     * {@code null} or a missing node.
     *
     * @throws ConfigException naming {@code source} if the text is not one well-formed YAML document
     */
    public static JsonNode readYamlTree(String yaml, String source) {
        if (yaml.length() > MAX_BYTES) {
            throw ConfigException.forSource(source, "is " + yaml.length() + " characters long, above the 1 MiB limit ("
                    + MAX_BYTES + " characters); a config is a few hundred", null);
        }
        JsonNode tree;
        try (JsonParser parser = new NoAliases(YamlMapping.MAPPER.createParser(yaml), source)) {
            tree = YamlMapping.MAPPER.readTree(parser);
            if (parser.nextToken() != null) {
                throw ConfigException.forSource(source,
                        "holds more than one YAML document; a config is a single document", null);
            }
        } catch (JsonProcessingException e) {
            throw syntaxError(e, source);
        } catch (IOException e) {
            // Reading from a String does no I/O; this is Jackson's signature, not a real failure mode.
            throw ConfigException.forSource(source, "cannot read YAML: " + e.getMessage(), e);
        }
        return tree;
    }

    private static ConfigException syntaxError(JsonProcessingException e, String source) {
        if (e instanceof JacksonYAMLParseException && e.getCause() instanceof MarkedYAMLException marked) {
            Mark mark = marked.getProblemMark() != null ? marked.getProblemMark() : marked.getContextMark();
            String problem = marked.getProblem() != null ? marked.getProblem() : marked.getContext();
            if (mark != null) {
                return ConfigException.forSource(source, "malformed YAML at line " + (mark.getLine() + 1)
                        + ", column " + (mark.getColumn() + 1) + ": " + problem, e);
            }
        }
        JsonLocation at = e.getLocation();
        String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
        if (e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Malformed numeric value")
                && e.getProcessor() instanceof JsonParser parser) {
            // YAML's .nan and .inf (and numbers Java cannot read) fail in the parser, before any key is bound.
            String path = contextPath(parser.getParsingContext());
            String text = currentText(parser);
            String problem = SPECIAL_FLOAT.matcher(text).matches()
                    ? "expects a finite number, found " + text
                    : "expects a number, found " + text + ", which is not one Java can read";
            return path.isEmpty() ? ConfigException.forSource(source, "malformed number" + where + ": " + text, e)
                    : ConfigException.forKey(path, problem).inSource(source, e);
        }
        if (e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Duplicate field")
                && e.getProcessor() instanceof JsonParser parser) {
            // The parser context still points at the mapping that holds the repeated key.
            return ConfigException.forSource(source,
                    "duplicate key '" + contextPath(parser.getParsingContext()) + "'" + where, e);
        }
        return ConfigException.forSource(source, "malformed YAML" + where + ": " + firstLine(e.getOriginalMessage()),
                e);
    }

    /** YAML's not-a-number and infinities: {@code .nan}, {@code .inf}, {@code -.Inf} and so on. */
    private static final Pattern SPECIAL_FLOAT = Pattern.compile("[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)");

    private static String currentText(JsonParser parser) {
        try {
            String text = parser.getText();
            return text == null ? "nothing" : text;
        } catch (IOException | RuntimeException e) {
            return "an unreadable value";
        }
    }

    /**
     * Rejects YAML aliases ({@code *name}) as it reads: Jackson would hand the alias's name over as if it were the
     * text of the value (so {@code batchSizePerWorker: *w} read as the string "w"). Anchors alone ({@code &name})
     * are harmless and ignored.
     */
    private static final class NoAliases extends JsonParserDelegate {

        private final String source;

        NoAliases(JsonParser yaml, String source) {
            super(yaml);
            this.source = source;
        }

        @Override
        public JsonToken nextToken() throws IOException {
            return checked(super.nextToken());
        }

        @Override
        public String nextFieldName() throws IOException {
            String name = super.nextFieldName();
            checked(currentToken());
            return name;
        }

        @Override
        public boolean nextFieldName(SerializableString name) throws IOException {
            boolean same = super.nextFieldName(name);
            checked(currentToken());
            return same;
        }

        private JsonToken checked(JsonToken token) throws IOException {
            if (token != null && delegate() instanceof YAMLParser yaml && yaml.isCurrentAlias()) {
                String path = contextPath(getParsingContext());
                String problem = "uses the YAML alias *" + getText() + "; aliases are not supported in a config:"
                        + " write the value out";
                throw path.isEmpty() ? ConfigException.forSource(source, problem, null)
                        : ConfigException.forKey(path, problem).inSource(source);
            }
            return token;
        }
    }

    private static ConfigException translate(JsonProcessingException e, String source) {
        ConfigException rejected = causeOfType(e, ConfigException.class);
        if (rejected != null) {
            // A record's compact constructor rejected a value; Jackson wrapped it on the way out.
            return rejected.inSource(source, e);
        }
        if (e instanceof UnrecognizedPropertyException u) {
            return unknownKey(u).inSource(source, e);
        }
        if (e instanceof InvalidFormatException f) {
            return wrongType(keyPath(f), f.getTargetType(), describeValue(f.getValue())).inSource(source, e);
        }
        if (e instanceof MismatchedInputException m && m.getTargetType() != null) {
            return wrongType(keyPath(m), m.getTargetType(), describeCurrent(m.getProcessor())).inSource(source, e);
        }
        InputCoercionException overflow = causeOfType(e, InputCoercionException.class);
        if (overflow != null && overflow.getProcessor() != null) {
            // An integer too large for its field; Jackson may or may not have wrapped it with a path.
            String path = e instanceof JsonMappingException m && !m.getPath().isEmpty()
                    ? keyPath(m) : contextPath(overflow.getProcessor().getParsingContext());
            return wrongType(path, overflow.getTargetType(),
                    describeCurrent(overflow.getProcessor()) + " (out of range)").inSource(source, e);
        }
        if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
            return ConfigException.forKey(keyPath(m), "is invalid: " + firstLine(m.getOriginalMessage()))
                    .inSource(source, e);
        }
        return ConfigException.forSource(source, firstLine(e.getOriginalMessage()), e);
    }

    private static <T extends Throwable> T causeOfType(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    private static ConfigException unknownKey(UnrecognizedPropertyException u) {
        return ConfigException.unknownKey(keyPath(u),
                u.getKnownPropertyIds().stream().map(String::valueOf).toList());
    }

    private static ConfigException wrongType(String path, Class<?> target, String found) {
        return ConfigException.forKey(path, "expects " + expectedKind(target) + ", found " + found);
    }

    private static String expectedKind(Class<?> target) {
        if (target == null) {
            return "another kind of value";
        }
        if (target.isEnum()) {
            return "one of " + ConfigEnums.yamlNamesOf(target);
        }
        if (target == Integer.class || target == int.class || target == Long.class || target == long.class
                || target == Short.class || target == short.class || target == BigInteger.class) {
            return "an integer";
        }
        if (target == Double.class || target == double.class || target == Float.class || target == float.class
                || target == BigDecimal.class) {
            return "a number";
        }
        if (target == Boolean.class || target == boolean.class) {
            return "a boolean";
        }
        if (target == String.class) {
            return "text";
        }
        return "a mapping";
    }

    private static String describeValue(Object value) {
        if (value instanceof String s) {
            return Checks.quote(s);
        }
        return String.valueOf(value);
    }

    /** What the parser is looking at when binding failed: the offending value. */
    private static String describeCurrent(Object processor) {
        if (!(processor instanceof JsonParser p) || p.currentToken() == null) {
            return "nothing";
        }
        JsonToken token = p.currentToken();
        try {
            return switch (token) {
                case VALUE_STRING -> Checks.quote(p.getText());
                case START_OBJECT, FIELD_NAME, END_OBJECT -> "a mapping";
                case START_ARRAY, END_ARRAY -> "a list";
                case VALUE_NULL -> "null";
                default -> p.getText();
            };
        } catch (IOException e) {
            return token.asString() == null ? token.name() : token.asString();
        }
    }

    private static String describe(JsonNode node) {
        JsonNodeType type = node.getNodeType();
        return switch (type) {
            case STRING -> Checks.quote(node.asText());
            case ARRAY -> "a list";
            case OBJECT -> "a mapping";
            default -> node.asText();
        };
    }

    /** The dotted key path of a binding error, from Jackson's reference chain. */
    private static String keyPath(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                if (path.length() > 0) {
                    path.append('.');
                }
                path.append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                path.append('[').append(ref.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    /** The dotted key path of the parser's current position, for errors that carry no reference chain. */
    private static String contextPath(JsonStreamContext context) {
        Deque<String> names = new ArrayDeque<>();
        for (JsonStreamContext c = context; c != null; c = c.getParent()) {
            if (c.getCurrentName() != null) {
                names.addFirst(c.getCurrentName());
            }
        }
        return String.join(".", names);
    }

    /** The sections of {@link ExperimentConfig}, sorted. */
    private static List<String> topLevelKeys() {
        return ExperimentConfig.SECTIONS.stream().sorted().toList();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unknown error";
        }
        int newline = message.indexOf('\n');
        return (newline < 0 ? message : message.substring(0, newline)).strip();
    }
}
