package io.lgc4j.lgc;

import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.lgc.autoencoder.LinearRingCode;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.CompressorKeys;
import io.lgc4j.core.compress.LgcSupportCompressor;
import io.lgc4j.core.compress.CompressorProvider;
import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.settings.Section;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.stage.Stage;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The settings of learned gradient compression ({@code compressor: {type: lgc}}), shared by LGC-PS and LGC-RAR:
 * the support's ratio, the autoencoder's architecture and online training, and the controls beyond the paper
 * (drift guard, reconstruction feedback, exact innovation, the accumulators' low-pass factor, the ablation of a control
 * run). The settings only the parameter server has (the innovation share, the support policy) are LGC-PS's topology
 * settings.
 *
 * <p>Here, in {@code autoencoders}, because its components are this module's types; the LGC topologies, which
 * depend on this module, build from it.
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
        SettingsException.require(linearLatent >= 0, "linearLatent", "must be 0 (the convolutional autoencoder) or "
                + "a positive number of floats, found " + linearLatent);
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
     * Registers {@code lgc} (META-INF/services of this module). Its settings come from three sections:
     * {@code compressor} ({@code ratio}, {@code lowPass}) and {@code autoencoder} (architecture, optimizer, λs,
     * controls; {@code ablation} defaults to {@code none}, and the topology checks that it runs it). On its own its compressor is the support selection ({@link LgcSupportCompressor}); the topology
     * modules register LGC-PS and LGC-RAR for {@code lgc}, which add the autoencoder.
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

        @Override
        public LgcSettings settings(ResolvedConfig config) {
            Section compressor = config.section("compressor");
            Section ae = config.section("autoencoder");
            AutoencoderSpec spec = ae.bind(AutoencoderSpec.class);
            AeTraining training;
            try {
                training = AeTraining.named(ae.text("optimizer"), ae.number("learningRate"), ae.number("lambdaRec"),
                        ae.number("lambdaSim"));
            } catch (SettingsException e) {
                throw e;
            } catch (IllegalArgumentException e) {
                throw new SettingsException(ae.path(), "cannot be built: " + e.getMessage());
            }
            LgcControl control;
            // absent: the method itself (a section written before the key existed reads as it did)
            LgcAblation ablation = ae.has("ablation") ? ae.choice("ablation", LgcAblation.class) : LgcAblation.NONE;
            try {
                control = new LgcControl(ae.number("driftBound"), ae.integer("driftWindow"), ae.integer("checkEvery"),
                        ae.integer("checkSample"), ae.flag("reconstructionFeedback"), ae.flag("exactInnovation"),
                        compressor.number("lowPass"), ablation);
            } catch (SettingsException e) {
                throw e;
            } catch (IllegalArgumentException e) {
                throw new SettingsException(ae.path(), "cannot be built: " + e.getMessage());
            }
            // absent: the convolutional autoencoder (a section written before the key existed reads as it did)
            int linear = ae.has("linearLatent") ? ae.integer("linearLatent") : 0;
            SettingsException.require(linear >= 0, ae.path() + ".linearLatent", "must be 0 (the convolutional "
                    + "autoencoder) or a positive number of floats, found " + linear);
            try {
                return new LgcSettings(compressor.number("ratio"), spec, training, control, linear);
            } catch (SettingsException e) {
                throw e.under(compressor.path());
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
