package io.lgc4j.core.warmup;

import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.settings.Require;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The {@code warmup} section's own keys, defined once: how the FULL stage (the dense warm-up every method starts with)
 * travels. Bound with {@link io.lgc4j.core.settings.Section#bind}; the chosen compressor's keys sit beside them and
 * are read by its provider ({@link Warmup#of}).
 *
 * <pre>{@code
 * warmup: {type: powersgd, values: inherit, carryMemory: true, rank: 2}
 * }</pre>
 *
 * @param type        {@code none} or a registered compressor type whose payload the topology carries (not lgc)
 * @param values      {@code inherit} or a value encoding's name ({@link ValueEncoding#names()})
 * @param carryMemory whether the warm-up's residual is absorbed by the main method's memory at the switch
 */
public record WarmupSection(String type, String values, boolean carryMemory) {

    /** {@code type} of the dense warm-up. */
    public static final String NONE = "none";
    /** {@code values} that takes {@code compressor.values}. */
    public static final String INHERIT = "inherit";
    /** Every key at its default: the dense warm-up, today's bits. */
    public static final WarmupSection DEFAULT = new WarmupSection(NONE, INHERIT, true);
    /** The section's own keys; any other is a key of the warm-up compressor. */
    public static final Set<String> OWN_KEYS = Set.of("type", "values", "carryMemory");

    /** Checks {@code type} is given and {@code values} is {@code inherit} or an encoding. */
    public WarmupSection {
        Require.notEmpty("type", type);
        Require.oneOf("values", values, valueChoices());
    }

    /** The spellings {@code values} accepts: {@code inherit}, then the encodings. */
    public static List<String> valueChoices() {
        List<String> names = new ArrayList<>();
        names.add(INHERIT);
        names.addAll(ValueEncoding.names());
        return List.copyOf(names);
    }

    /** @return whether this is the default: dense, values inherited (today's path, bit for bit) */
    public boolean isDefault() {
        return type.equals(NONE) && values.equals(INHERIT);
    }
}
