package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.regex.Pattern;

/**
 * The {@code run} section: what the run is called, the one seed that drives it, and where results go.
 *
 * <pre>{@code
 * run:
 *   name: quickstart      # required; [A-Za-z0-9._-]+, at most 100 characters; names the result directory
 *   seed: 42              # default 42; drives data order, init, leader choice and AE init
 *   outputDir: results    # default "results"
 * }</pre>
 *
 * <pre>{@code
 * RunConfig run = RunConfig.named("smoke").withOutputDir("/tmp/lgc");
 * }</pre>
 *
 * @param name      the run's name; letters, digits, {@code .}, {@code _} and {@code -} only, so it is safe in a path
 * @param seed      the seed of every random choice in the run
 * @param outputDir the directory under which {@code <run-id>/} is created
 */
@JsonPropertyOrder({"name", "seed", "outputDir"})
public record RunConfig(String name, long seed, String outputDir) {

    /** Default of {@code run.seed}. */
    public static final long DEFAULT_SEED = 42;
    /** Default of {@code run.outputDir}. */
    public static final String DEFAULT_OUTPUT_DIR = "results";
    /** What {@code run.name} must match. */
    public static final String NAME_PATTERN = "[A-Za-z0-9._-]+";
    /**
     * The longest {@code run.name}: the result directory is named {@code <name>-<yyyyMMdd-HHmmss>[-n]}, and a file
     * name may have 255 bytes on common file systems.
     */
    public static final int MAX_NAME_LENGTH = 100;

    private static final Pattern NAME = Pattern.compile(NAME_PATTERN);

    /**
     * Checks every component; the first bad one is reported by its key.
     *
     * @param name      the run's name; letters, digits, {@code .}, {@code _} and {@code -} only, so it is safe
     *                  in a path
     * @param seed      the seed of every random choice in the run
     * @param outputDir the directory under which {@code <run-id>/} is created
     * @throws ConfigException if a component is missing or out of range
     */
    public RunConfig {
        // Checked here rather than in the loader so that records built in code are held to the same rules.
        Checks.required("run.name", name);
        if (name.length() > MAX_NAME_LENGTH) {
            throw ConfigException.forKey("run.name", "must be at most " + MAX_NAME_LENGTH + " characters, found "
                    + Checks.quote(name));
        }
        if (!NAME.matcher(name).matches()) {
            throw ConfigException.forKey("run.name", "must match " + NAME_PATTERN + ", found " + Checks.quote(name));
        }
        Checks.notEmpty("run.outputDir", outputDir);
    }

    /**
     * @param name the run's name
     * @return a run section with that name and every other key at its default
     */
    public static RunConfig named(String name) {
        return new RunConfig(name, DEFAULT_SEED, DEFAULT_OUTPUT_DIR);
    }

    /**
     * @param newOutputDir the directory under which results are written
     * @return this section with {@code outputDir} replaced
     */
    public RunConfig withOutputDir(String newOutputDir) {
        return new RunConfig(name, seed, newOutputDir);
    }

    /**
     * @param newSeed the run's seed
     * @param suffix  appended to the name ({@code "-s7"}), so that the runs of several seeds are told apart
     * @return this section with {@code seed} replaced and the name suffixed
     */
    public RunConfig withSeed(long newSeed, String suffix) {
        return new RunConfig(name + suffix, newSeed, outputDir);
    }

    @JsonCreator
    private static RunConfig fromYaml(@JsonProperty("name") String name,
                                      @JsonProperty("seed") Long seed,
                                      @JsonProperty("outputDir") String outputDir) {
        return new RunConfig(name,
                Checks.orDefault(seed, DEFAULT_SEED),
                Checks.orDefault(outputDir, DEFAULT_OUTPUT_DIR));
    }
}
