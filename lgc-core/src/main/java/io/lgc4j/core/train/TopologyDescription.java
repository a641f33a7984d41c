package io.lgc4j.core.train;

import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.settings.Section;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link Topology} is, in its own words: type, compressor and its settings record, index codec and the
 * topology's own settings, plus the value encoding the trainer adds ({@link DistributedTrainer.Builder#values}).
 * {@link DistributedTrainer} records it in every {@link TrainingResult}, whatever built the topology.
 *
 * <pre>{@code
 * new ParameterServerTopology(new DgcCompressor(0.001, 0.9, 0, 0), codec).describe().toMap();
 * // {topology=ps, compressor=dgc, compressorSettings={ratio=0.001, ...}, codec=deflate, values=fp32, ...}
 * }</pre>
 *
 * @param topology           the topology's type ({@code ps}, {@code ring})
 * @param compressor         the compressor's type ({@code none} for a dense topology)
 * @param compressorSettings the compressor's settings record ({@link #NO_SETTINGS} for none)
 * @param codec              the index codec's name, or {@code null} when the topology sends no indices (dense)
 * @param values             the encoding of the run's values ({@code compressor.values})
 * @param topologySettings   the topology's own settings record ({@link #NO_SETTINGS} when it has none)
 */
public record TopologyDescription(String topology, String compressor, Record compressorSettings, String codec,
                                  ValueEncoding values, Record topologySettings) {

    /** Settings of something that has none. */
    public record None() {
    }

    /** The settings of a method or topology without settings: an empty record. */
    public static final Record NO_SETTINGS = new None();

    /** Rejects nulls but {@code codec}. */
    public TopologyDescription {
        Objects.requireNonNull(topology, "topology");
        Objects.requireNonNull(values, "values");
        Objects.requireNonNull(compressor, "compressor");
        Objects.requireNonNull(compressorSettings, "compressorSettings");
        Objects.requireNonNull(topologySettings, "topologySettings");
    }

    /** A topology's description of itself: its values in fp32 (the trainer sets the run's, {@link #withValues}). */
    public TopologyDescription(String topology, String compressor, Record compressorSettings, String codec,
                               Record topologySettings) {
        this(topology, compressor, compressorSettings, codec, ValueEncoding.FP32, topologySettings);
    }

    /** The same description, the values in {@code encoding}. */
    public TopologyDescription withValues(ValueEncoding encoding) {
        return new TopologyDescription(topology, compressor, compressorSettings, codec, encoding, topologySettings);
    }

    /**
     * The description as an ordered map of plain values, for result files: keys {@code topology},
     * {@code compressor}, {@code compressorSettings}, {@code codec} (absent when null), {@code values} ({@code fp32},
     * {@code fp16}, {@code bf16}), {@code topologySettings};
     * records become maps of their components, enums their lower-case spelling ({@code leader}), lists stay
     * lists, numbers, booleans and text stay as they are, anything else is its {@code toString()}.
     */
    public Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("topology", topology);
        map.put("compressor", compressor);
        map.put("compressorSettings", plain(compressorSettings));
        if (codec != null) {
            map.put("codec", codec);
        }
        map.put("values", values.toString());
        map.put("topologySettings", plain(topologySettings));
        return Collections.unmodifiableMap(map);
    }

    /** {@code value} as {@link #toMap()} writes it: {@link Section#plain}. */
    public static Object plain(Object value) {
        return Section.plain(value);
    }
}
