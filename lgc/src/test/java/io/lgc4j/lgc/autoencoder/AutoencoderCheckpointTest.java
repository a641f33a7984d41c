package io.lgc4j.lgc.autoencoder;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.PartKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An autoencoder and its trainer saved into a checkpoint part (through its bytes) and restored into fresh ones go on
 * exactly as the originals: the same losses, weights, latents and reconstructions, bit for bit, whether they were
 * saved before the first training step (no optimizer yet) or after several, under every optimizer the settings
 * name. The fresh autoencoder is built from another seed, so only a complete restore makes it equal the original.
 * A section that does not fit is refused, naming it.
 */
class AutoencoderCheckpointTest {

    /** Two stride-2 convolutions of 4 filters, a latent of 2 channels: μ = 24 pads to 24, a latent of 2 × 6. */
    private static final AutoencoderSpec SMALL = new AutoencoderSpec(List.of(4, 4), 2, 3, 2, List.of(4, 4),
            List.of(2, 2), 0.01);
    private static final int MU = 24;
    private static final int K = 3;
    private static final long AE_SEED = 5;
    private static final long OTHER_AE_SEED = 99;
    private static final long TRAINER_SEED = 6;
    private static final int STEPS_AFTER = 3;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"adam", "sgd", "nesterovs"})
    void psAutoencoderRestoredBeforeItsFirstStepShouldTrainExactlyAsTheOriginal(String optimizer) throws Exception {
        assertPsGoesOnExactly(optimizer, 0);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"adam", "sgd", "nesterovs"})
    void psAutoencoderRestoredAfterSeveralStepsShouldGoOnExactlyAsTheOriginal(String optimizer) throws Exception {
        assertPsGoesOnExactly(optimizer, 4);
    }

    @Test
    void ringAutoencoderRestoredBeforeItsFirstStepShouldTrainExactlyAsTheOriginal() throws Exception {
        assertRingGoesOnExactly(0);
    }

    @Test
    void ringAutoencoderRestoredAfterSeveralStepsShouldGoOnExactlyAsTheOriginal() throws Exception {
        assertRingGoesOnExactly(4);
    }

    @Test
    void encoderStateShouldCarryTheEncoderAlone() throws Exception {
        SyntheticGradients data = new SyntheticGradients(MU, K, 0.2, 7);
        PsAutoencoder trained = trainedThreeSteps(data);
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
        trained.encoderState().save(b, "worker-ae");
        CheckpointPart part = CheckpointPart.parse(b.build().toBytes(), "x");
        assertEquals(List.of("worker-ae/encoder"), part.sectionNames());

        PsAutoencoder worker = ps(AeTraining.DEFAULT, AE_SEED);
        worker.encoderState().restore(part, "worker-ae");
        assertArrayEquals(trained.encoderBytes(), worker.encoderBytes());
        float[] v = data.next()[1];
        assertTrue(Arrays.equals(trained.encode(v, Scale.rms(v)), worker.encode(v, Scale.rms(v))), "latent");
    }

    /**
     * LGC-PS at another number of workers: a K = 3 autoencoder trained 3 steps (Adam) resized to 5 restores into a
     * K = 5 autoencoder with decoder 3 a copy of decoder 0 and decoder 4 of decoder 1 (weights and optimizer state: the
     * resized part saved again is what was restored), the encoder and the kept decoders as they were; resized to 2,
     * decoder 2 and its optimizer state are gone. Both go on training.
     */
    @ParameterizedTest(name = "K' = {0}")
    @ValueSource(ints = {2, 5})
    void aResizedPsAutoencoderShouldCopyOrDropDecodersWithTheirOptimizerState(int to) throws Exception {
        PsAutoencoder trained = trainedThreeSteps(new SyntheticGradients(MU, K, 0.2, 7));
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.SERVER);
        trained.save(b, "ae");
        CheckpointPart.Builder resized = CheckpointPart.builder(PartKind.SERVER);
        PsAutoencoder.resize(parse(b), "ae", resized, K, to);
        CheckpointPart part = parse(resized);

        PsAutoencoder restored = new PsAutoencoder(SMALL, MU, to, 0.1, AeTraining.DEFAULT, OTHER_AE_SEED);
        restored.restore(part, "ae");
        assertArrayEquals(trained.encoderBytes(), restored.encoderBytes());
        for (int k = 0; k < to; k++) {
            assertArrayEquals(trained.decoderBytes(k % K), restored.decoderBytes(k), "decoder " + k);
        }
        CheckpointPart.Builder again = CheckpointPart.builder(PartKind.SERVER);
        restored.save(again, "ae");
        assertArrayEquals(part.bytes("ae/training"), parse(again).bytes("ae/training"),
                "the optimizer state restored is the resized one, in the training graph's order");
        assertEquals(3, part.section("ae/training").getInt(), "the training steps as they were");
        int tensors = countTensors(parse(b));
        int perDecoder = (tensors - countTensors(parse(b), "encoder")) / K;
        assertEquals(tensors + (to - K) * perDecoder, countTensors(part));
        AutoencoderTrainer goesOn = AutoencoderTrainer.ps(restored, TRAINER_SEED);
        float[][] next = new SyntheticGradients(MU, to, 0.2, 8).next();
        assertTrue(Double.isFinite(goesOn.step(next).total()), "a resized autoencoder trains");
    }

    /** A K = 3 LGC-PS autoencoder (Adam) trained 3 steps on {@code data}. */
    private static PsAutoencoder trainedThreeSteps(SyntheticGradients data) {
        PsAutoencoder trained = ps(AeTraining.DEFAULT, AE_SEED);
        AutoencoderTrainer trainer = AutoencoderTrainer.ps(trained, TRAINER_SEED);
        for (int s = 0; s < 3; s++) {
            trainer.step(data.next());
        }
        return trained;
    }

    /** The tensors with optimizer state in {@code part}'s {@code ae/training} whose names start with {@code start}. */
    private static int countTensors(CheckpointPart part, String start) throws CheckpointException {
        var r = part.section("ae/training");
        r.getInt();
        int count = r.getInt();
        int matching = 0;
        for (int i = 0; i < count; i++) {
            matching += r.getString().startsWith(start) ? 1 : 0;
            r.getFloats(r.getInt());
        }
        return matching;
    }

    private static int countTensors(CheckpointPart part) throws CheckpointException {
        return countTensors(part, "");
    }

    @Test
    void shouldRefuseAnEncoderSectionOfTheWrongLength() {
        PsAutoencoder ae = ps(AeTraining.DEFAULT, AE_SEED);
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.SERVER);
        b.section("ae/encoder").putBytes(Arrays.copyOf(ae.encoderBytes(), ae.encoderBytes().length - 4));
        CheckpointException e = assertThrows(CheckpointException.class,
                () -> ps(AeTraining.DEFAULT, AE_SEED).restore(parse(b), "ae"));
        assertEquals("section 'ae/encoder' of x: expected the ENCODER weights (452 bytes), found 448 bytes",
                e.getMessage());
    }

    @Test
    void shouldRefuseAPartWithoutEveryDecoderOfThisAutoencoder() {
        RingAutoencoder ring = ring(AeTraining.DEFAULT, AE_SEED);
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
        ring.save(b, "ae");
        CheckpointPart part = parse(b);
        PsAutoencoder ps = ps(AeTraining.DEFAULT, AE_SEED);
        CheckpointPart.Builder mixed = CheckpointPart.builder(PartKind.RANK);
        mixed.section("ae/encoder").putBytes(ps.encoderBytes());
        mixed.section("ae/decoder-0").putBytes(ps.decoderBytes(0));
        mixed.section("ae/decoder-1").putBytes(ps.decoderBytes(1));
        CheckpointException missing = assertThrows(CheckpointException.class,
                () -> ps(AeTraining.DEFAULT, AE_SEED).restore(parse(mixed), "ae"));
        assertEquals("x has no section 'ae/decoder-2'; its sections: ae/encoder, ae/decoder-0, ae/decoder-1",
                missing.getMessage());
        CheckpointException wrong = assertThrows(CheckpointException.class,
                () -> ps(AeTraining.DEFAULT, AE_SEED).restore(part, "ae"));
        assertEquals("x has no section 'ae/decoder-0'; its sections: ae/encoder, ae/decoder, ae/training",
                wrong.getMessage());
    }

    @Test
    void shouldRefuseOptimizerStateOfAnotherOptimizer() throws Exception {
        PsAutoencoder adam = ps(AeTraining.DEFAULT, AE_SEED);
        AutoencoderTrainer trainer = AutoencoderTrainer.ps(adam, TRAINER_SEED);
        SyntheticGradients data = new SyntheticGradients(MU, K, 0.2, 7);
        trainer.step(data.next());
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.SERVER);
        adam.save(b, "ae");
        CheckpointPart part = parse(b);
        PsAutoencoder sgd = ps(AeTraining.PAPER, AE_SEED);
        CheckpointException e = assertThrows(CheckpointException.class, () -> sgd.restore(part, "ae"));
        // the first tensor in the training graph's order
        assertEquals("section 'ae/training' of x: tensor 'decoder0/deconv1.W' has 48 floats of optimizer state, "
                + "this autoencoder's Sgd keeps 0", e.getMessage());
    }

    @Test
    void shouldRefuseATrainingSectionOfTheWrongLength() throws Exception {
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.SERVER);
        PsAutoencoder ae = ps(AeTraining.DEFAULT, AE_SEED);
        ae.save(b, "ae");
        CheckpointPart saved = parse(b);
        CheckpointPart.Builder longer = CheckpointPart.builder(PartKind.SERVER);
        for (String name : saved.sectionNames()) {
            byte[] body = saved.bytes(name);
            longer.section(name).putBytes(name.equals("ae/training") ? Arrays.copyOf(body, body.length + 1) : body);
        }
        CheckpointException e = assertThrows(CheckpointException.class,
                () -> ps(AeTraining.DEFAULT, AE_SEED).restore(parse(longer), "ae"));
        assertEquals("section 'ae/training' of x: 1 byte follow what was read, expected none", e.getMessage());
    }

    @Test
    void shouldRefuseATrainerHistoryOfTheWrongLength() {
        AutoencoderTrainer trainer = AutoencoderTrainer.ps(ps(AeTraining.DEFAULT, AE_SEED), TRAINER_SEED);
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.SERVER);
        b.section("trainer/random").putLong(TRAINER_SEED).putLong(2);
        b.section("trainer/history").putInt(2).putDouble(0.5).putDouble(0).putDouble(0.5);
        CheckpointException e = assertThrows(CheckpointException.class, () -> trainer.restore(parse(b), "trainer"));
        assertEquals("section 'trainer/history' of x: expected the losses of 2 steps (48 bytes after the count), "
                + "found 24 bytes", e.getMessage());
    }

    @Test
    void shouldRefuseATrainerOfAnotherSeedAndMoreDrawsThanSteps() throws Exception {
        AutoencoderTrainer trainer = AutoencoderTrainer.ps(ps(AeTraining.DEFAULT, AE_SEED), TRAINER_SEED);
        CheckpointPart.Builder other = CheckpointPart.builder(PartKind.SERVER);
        AutoencoderTrainer.ps(ps(AeTraining.DEFAULT, AE_SEED), 7).save(other, "trainer");
        CheckpointException seed = assertThrows(CheckpointException.class,
                () -> trainer.restore(parse(other), "trainer"));
        assertEquals("section 'trainer/random' of x: drawn from seed 7, this trainer's seed is 6", seed.getMessage());

        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.SERVER);
        b.section("trainer/random").putLong(TRAINER_SEED).putLong(1_000_000_000_000L);
        b.section("trainer/history").putInt(0);
        CheckpointException draws = assertThrows(CheckpointException.class,
                () -> trainer.restore(parse(b), "trainer"));
        assertEquals("section 'trainer/random' of x: 1,000,000,000,000 draws for 0 steps in 'trainer/history'; a "
                + "step draws at most once", draws.getMessage());
    }

    private static void assertPsGoesOnExactly(String optimizer, int before) throws CheckpointException {
        AeTraining training = AeTraining.named(optimizer, 1e-2, 1.0, 0.5);
        PsAutoencoder original = ps(training, AE_SEED);
        AutoencoderTrainer originalTrainer = AutoencoderTrainer.ps(original, TRAINER_SEED);
        SyntheticGradients data = new SyntheticGradients(MU, K, 0.2, 7);
        for (int s = 0; s < before; s++) {
            originalTrainer.step(data.next());
        }
        CheckpointPart part = saved(original, originalTrainer);

        PsAutoencoder restored = ps(training, OTHER_AE_SEED);
        AutoencoderTrainer restoredTrainer = AutoencoderTrainer.ps(restored, TRAINER_SEED);
        assertFalse(Arrays.equals(original.encoderBytes(), restored.encoderBytes()), "another seed's weights");
        restored.restore(part, "ae");
        restoredTrainer.restore(part, "trainer");
        assertEquals(before, restored.iterations());
        assertEquals(originalTrainer.history(), restoredTrainer.history());

        for (int s = 0; s < STEPS_AFTER; s++) {
            float[][] compacts = data.next();
            assertEquals(originalTrainer.step(compacts), restoredTrainer.step(compacts), "step " + (before + s));
        }
        assertEquals(originalTrainer.history(), restoredTrainer.history());
        assertArrayEquals(original.encoderBytes(), restored.encoderBytes(), "encoder");
        float[] v = data.next()[2];
        float scale = Scale.rms(v);
        float[] latent = original.encode(v, scale);
        assertTrue(Arrays.equals(latent, restored.encode(v, scale)), "latent");
        for (int k = 0; k < K; k++) {
            assertArrayEquals(original.decoderBytes(k), restored.decoderBytes(k), "decoder " + k);
            assertTrue(Arrays.equals(original.decode(k, latent, original.innovation(v), scale),
                    restored.decode(k, latent, restored.innovation(v), scale)), "reconstruction " + k);
        }
    }

    private static void assertRingGoesOnExactly(int before) throws CheckpointException {
        AeTraining training = AeTraining.named("adam", 1e-2, 1.0, 0.5);
        RingAutoencoder original = ring(training, AE_SEED);
        AutoencoderTrainer originalTrainer = AutoencoderTrainer.ring(original, TRAINER_SEED);
        SyntheticGradients data = new SyntheticGradients(MU, K, 0.2, 8);
        for (int s = 0; s < before; s++) {
            originalTrainer.step(data.next());
        }
        CheckpointPart part = saved(original, originalTrainer);

        RingAutoencoder restored = ring(training, OTHER_AE_SEED);
        AutoencoderTrainer restoredTrainer = AutoencoderTrainer.ring(restored, TRAINER_SEED);
        restored.restore(part, "ae");
        restoredTrainer.restore(part, "trainer");

        for (int s = 0; s < STEPS_AFTER; s++) {
            float[][] compacts = data.next();
            // both ways of choosing the reference: drawn, and given (the step's leader)
            assertEquals(originalTrainer.step(compacts), restoredTrainer.step(compacts), "step " + (before + s));
            assertEquals(originalTrainer.step(compacts, s % K), restoredTrainer.step(compacts, s % K));
        }
        assertEquals(originalTrainer.history(), restoredTrainer.history());
        assertArrayEquals(original.encoderBytes(), restored.encoderBytes(), "encoder");
        assertArrayEquals(original.decoderBytes(), restored.decoderBytes(), "decoder");
        float[] v = data.next()[0];
        float scale = Scale.rms(v);
        float[] latent = original.encode(v, scale);
        assertTrue(Arrays.equals(latent, restored.encode(v, scale)), "latent");
        assertTrue(Arrays.equals(original.decode(latent, scale), restored.decode(latent, scale)), "reconstruction");
    }

    /** The autoencoder under "ae" and the trainer under "trainer", through the part's bytes. */
    private static CheckpointPart saved(GradientAutoencoder ae, AutoencoderTrainer trainer) {
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.SERVER);
        ae.save(b, "ae");
        trainer.save(b, "trainer");
        return parse(b);
    }

    private static CheckpointPart parse(CheckpointPart.Builder b) {
        try {
            return CheckpointPart.parse(b.build().toBytes(), "x");
        } catch (CheckpointException e) {
            throw new AssertionError("a part just built must parse", e);
        }
    }

    private static PsAutoencoder ps(AeTraining training, long seed) {
        return new PsAutoencoder(SMALL, MU, K, 0.1, training, seed);
    }

    private static RingAutoencoder ring(AeTraining training, long seed) {
        return new RingAutoencoder(SMALL, MU, K, training, seed);
    }
}
