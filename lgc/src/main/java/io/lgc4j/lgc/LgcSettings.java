package io.lgc4j.lgc;

import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.lgc.autoencoder.LinearRingCode;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.CompressorKeys;
import io.lgc4j.lgc.support.LgcSupportCompressor;
import io.lgc4j.core.compress.CompressorProvider;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.settings.Section;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.stage.Stage;

import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The settings of learned gradient compression ({@code compressor: {type: lgc}}), shared by LGC-PS and LGC-RAR; the
 * parameter server's own settings (innovation share, support policy) are LGC-PS's topology settings. A
 * configuration's {@code autoencoder} section, {@link AutoencoderSection}, builds them with the compressor's keys.
 *
 * <pre>{@code
 * LgcSettings lgc = new LgcSettings(0.001, AutoencoderSpec.PAPER, AeTraining.DEFAULT, LgcControl.DEFAULT);
 * Topology ring = new LgcRingTopology(lgc.ratio(), codec, lgc.spec(), lgc.training(), seed, lgc.control());
 * }</pre>
 *
 * @param ratio    fraction of each compressible block selected per step, in (0, 1] (the paper: 0.001)
 * @param spec     the autoencoder's architecture
 * @param training the autoencoder's online training
 * @param control  the controls beyond the paper, with the accumulators' low-pass factor ({@code compressor.lowPass})
 * @param linearLatent 0: the convolutional autoencoder of {@code spec}; f &gt; 0: LGC-RAR's linear code of f floats
 *                 ({@link LinearRingCode}) instead ({@code autoencoder.linearLatent}; LGC-PS refuses it)
 */
public record LgcSettings(double ratio, AutoencoderSpec spec, AeTraining training, LgcControl control,
                          int linearLatent) {

    /** Checks every component, naming the first that is missing or out of range. */
    public LgcSettings {
        CompressorKeys.requireRatio(ratio);
        SettingsException.required(spec, "spec");
        SettingsException.required(training, "training");
        SettingsException.required(control, "control");
        AutoencoderSection.requireLinearLatent(linearLatent);
    }

    /** The convolutional autoencoder of {@code spec}. */
    public LgcSettings(double ratio, AutoencoderSpec spec, AeTraining training, LgcControl control) {
        this(ratio, spec, training, control, 0);
    }

    /** @return the accumulators' low-pass factor β ({@code compressor.lowPass}) */
    public double lowPass() {
        return control.lowPass();
    }

    /**
     * Registers {@code lgc} (META-INF/services of this module). Its settings come from two sections:
     * {@code compressor} ({@code ratio}, {@code lowPass}) and {@code autoencoder} ({@link AutoencoderSection}:
     * architecture, optimizer, λs, controls; the topology checks that it runs the {@code ablation}). On its own its
     * compressor is the support selection ({@link LgcSupportCompressor}); the topology modules register LGC-PS and
     * LGC-RAR for {@code lgc}, which add the autoencoder.
     */
    public static final class Provider implements CompressorProvider<LgcSettings> {
        @Override
        public String type() {
            return "lgc";
        }

        @Override
        public Class<LgcSettings> settingsType() {
            return LgcSettings.class;
        }

        /** The keys LGC reads from the {@code compressor} section; the rest are in {@code autoencoder}. */
        @Override
        public Set<String> sectionKeys() {
            return Set.of("ratio", "lowPass");
        }

        /**
         * The {@code compressor} section's {@code ratio} and {@code lowPass} and the whole {@code autoencoder}
         * section ({@link AutoencoderSection}), a missing key at its default.
         */
        @Override
        public LgcSettings settings(ResolvedConfig config) {
            CompressorKeys compressor = config.section("compressor").bind(CompressorKeys.class,
                    CompressorKeys.DEFAULT);
            return autoencoder(config).settings(compressor);
        }

        /**
         * The {@code autoencoder} section of {@code config}, a missing key at its default.
         *
         * @throws SettingsException naming the first key that is of the wrong kind or out of range, or
         *                           {@code autoencoder cannot be built: ...} with the reason
         */
        public static AutoencoderSection autoencoder(ResolvedConfig config) {
            return config.section("autoencoder").bind(AutoencoderSection.class, AutoencoderSection.DEFAULT);
        }

        /** The {@code autoencoder} section, in every configuration whichever compressor it names. */
        @Override
        public Map<String, Record> sections() {
            return Map.of("autoencoder", AutoencoderSection.DEFAULT);
        }

        /**
         * An {@code autoencoder.ablation} other than {@code none} needs {@code compressor.type lgc}; which
         * ablations a topology of lgc runs is that topology's own check.
         *
         * @throws SettingsException {@code autoencoder.ablation does not apply to compressor.type ...}
         */
        @Override
        public void checkAcross(ResolvedConfig config) {
            LgcAblation ablation = autoencoder(config).ablation();
            Section compressor = config.section("compressor");
            String compressorType = compressor.text("type");
            if (ablation != LgcAblation.NONE && !type().equals(Methods.normalize(compressorType))) {
                throw new SettingsException("autoencoder.ablation", "does not apply to compressor.type "
                        + compressorType + " on topology.type " + config.section("topology").text("type")
                        + ", found " + ablation + "; ablations are controls of compressor.type " + type()
                        + ", allowed with compressor.type " + compressorType + ": [" + LgcAblation.NONE + "]");
            }
        }

        @Override
        public Optional<Compressor> create(LgcSettings settings, long seed) {
            return Optional.of(new LgcSupportCompressor(settings.ratio(), seed, settings.lowPass()));
        }

        @Override
        public Set<Stage> stages() {
            return EnumSet.of(Stage.FULL, Stage.TOP_K, Stage.COMPRESSED);
        }
    }
}
