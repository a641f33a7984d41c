package io.lgc4j.core.settings;

import java.util.Objects;

/**
 * A setting that is missing, of the wrong kind or out of range, named by its key: the component of a settings
 * record ({@code ratio}), a nested one ({@code sketch.rows}) or, once a configuration layer adds the section, the
 * whole dotted path ({@code compressor.sketch.rows}). The message is {@code <key> <problem>}.
 *
 * <p>Settings records check their components in their compact constructors — ranges with {@link Require}, other
 * conditions with {@link #require} — so a record built in code and one bound from a configuration fail with the same
 * words:
 * <pre>{@code
 * public record Shape(int rows, int groupSize) {
 *     public Shape {
 *         Require.atLeast("rows", rows, 1);
 *         SettingsException.require(rows % 2 != 0, "rows", "must be odd, found " + rows);
 *     }
 * }
 * new Shape(4, 8);   // SettingsException: "rows must be odd, found 4"
 * }</pre>
 * It is an {@link IllegalArgumentException}, as every argument check of the library.
 */
public final class SettingsException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String key;
    private final String problem;

    /**
     * @param key     the dotted key of the setting, e.g. {@code ratio} or {@code sketch.rows}
     * @param problem what is wrong, e.g. {@code must be in (0, 1], found 0.0}
     */
    public SettingsException(String key, String problem) {
        super(Objects.requireNonNull(key, "key") + " " + Objects.requireNonNull(problem, "problem"));
        this.key = key;
        this.problem = problem;
    }

    /**
     * Throws unless {@code ok}.
     *
     * @param ok      the condition the setting must meet
     * @param key     the setting's name
     * @param problem what is wrong otherwise, with the value found
     * @throws SettingsException naming {@code key} when {@code ok} is false
     */
    public static void require(boolean ok, String key, String problem) {
        if (!ok) {
            throw new SettingsException(key, problem);
        }
    }

    /**
     * Throws when {@code value} is null.
     *
     * @return {@code value}
     * @throws SettingsException {@code <key> is required} when it is null
     */
    public static <T> T required(T value, String key) {
        if (value == null) {
            throw new SettingsException(key, "is required");
        }
        return value;
    }

    /** @return the dotted key of the setting */
    public String key() {
        return key;
    }

    /** @return what is wrong, without the key */
    public String problem() {
        return problem;
    }

    /**
     * The same problem, with its key put under {@code prefix}: {@code rows} under {@code compressor.sketch} is
     * {@code compressor.sketch.rows}.
     */
    public SettingsException under(String prefix) {
        if (prefix == null || prefix.isEmpty()) {
            return this;
        }
        SettingsException moved = new SettingsException(prefix + "." + key, problem);
        moved.initCause(this);
        return moved;
    }
}
