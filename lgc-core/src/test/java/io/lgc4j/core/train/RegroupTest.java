package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.Checkpoint;
import io.lgc4j.core.checkpoint.CheckpointDirectory;
import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointManifest;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.ModelIdentity;
import io.lgc4j.core.checkpoint.PartInfo;
import io.lgc4j.core.checkpoint.PartKind;
import io.lgc4j.core.checkpoint.Persistent.Regrouping;
import io.lgc4j.core.checkpoint.RunSignature;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.stage.Stage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A checkpoint of K ranks read as K' ranks' parts: each rule, the sums it keeps, and what it refuses. */
class RegroupTest {

    /** Old rank r's memory: element i is r·10 + i (ranks 0..3). */
    private static float[][] memories(int ranks, int n) {
        float[][] m = new float[ranks][n];
        for (int r = 0; r < ranks; r++) {
            for (int i = 0; i < n; i++) {
                m[r][i] = r * 10 + i + (r == 2 ? 0.5f : 0f);
            }
        }
        return m;
    }

    @Test
    void aMemoryShouldKeepItsMeanAndEachKeptRanksDeviation() {
        float[][] m = memories(4, 3);
        // mean of element 0: (0 + 10 + 20.5 + 30) / 4 = 15.125; kept ranks 0..2: mean 10.1667
        float[][] shrunk = new float[3][];
        for (int j = 0; j < 3; j++) {
            shrunk[j] = Regroup.memoryOf(m, j, 3);
        }
        assertEquals((float) (15.125 + (0 - 30.5 / 3)), shrunk[0][0]);
        assertEquals((float) (15.125 + (20.5 - 30.5 / 3)), shrunk[2][0]);
        for (int i = 0; i < 3; i++) {
            double before = 0;
            for (float[] row : m) {
                before += row[i];
            }
            double after = 0;
            for (float[] row : shrunk) {
                after += row[i];
            }
            assertEquals(before / 4, after / 3, 1e-5, "element " + i + ": the mean over the ranks is kept");
            assertEquals(shrunk[1][i] - shrunk[0][i], m[1][i] - m[0][i], 1e-5, "a kept rank's deviation is kept");
        }
        // growth: the old ranks as they were, a new rank the mean
        for (int j = 0; j < 4; j++) {
            assertArrayEquals(m[j], Regroup.memoryOf(m, j, 6), "rank " + j + " unchanged");
        }
        assertArrayEquals(new float[] {15.125f, 16.125f, 17.125f}, Regroup.memoryOf(m, 5, 6));
        // the same K: every rank as it was
        for (int j = 0; j < 4; j++) {
            assertArrayEquals(m[j], Regroup.memoryOf(m, j, 4));
        }
    }

    /** A checkpoint of 4 ranks after step 10: rank 0 the replica and history, every rank a memory, a flag, traffic. */
    private static Checkpoint checkpoint(Path dir, boolean sameFlag, String extra) throws IOException {
        CheckpointDirectory d = CheckpointDirectory.in(dir);
        float[][] m = memories(4, 5);
        List<PartInfo> parts = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
            if (r == 0) {
                b.section("replica/params").putFloats(new float[] {1, 2, 3});
                b.section("history").putInt(0);
                b.section("accuracy").putDouble(0.5);
            }
            b.section("exchange/memory").putFloats(m[r]);
            b.section("exchange/switched").putBoolean(sameFlag || r != 3);
            b.section("exchange/ae").putInt(r == 0 ? 9 : 1); // rank 0's own, a shipped copy on the others
            if (extra != null) {
                b.section(extra).putInt(r);
            }
            long[] traffic = new long[TrafficMeter.ROW_LENGTH];
            traffic[0] = 100 * (r + 1);
            b.section(Checkpointing.TRAFFIC).putLongs(traffic);
            parts.add(d.writeRankPart(10, r, b.build()));
        }
        RunSignature run = new RunSignature(4, 0, new ModelIdentity(3, "sha256:00"), Map.of("training.workers", "4"));
        return d.writeManifest(new CheckpointManifest("regroup", 10, Stage.TOP_K, run, parts));
    }

    /** {@code c} read at K' = {@code to} and its own S. */
    private static Regroup regroup(Checkpoint c, int to) {
        return new Regroup(c, to, c.manifest().run().services());
    }

    private static final Regrouping RULES = Regrouping.of("exchange/memory", Regrouping.Rule.MEMORY)
            .and("exchange/switched", Regrouping.Rule.REPLICATED).and("exchange/ae", Regrouping.Rule.SHIPPED);

    @Test
    void eachSectionShouldFollowItsRule(@TempDir Path dir) throws IOException {
        Checkpoint c = checkpoint(dir, true, null);
        Regroup shrink = regroup(c, 3);
        CheckpointPart rank0 = shrink.rankPart(0, RULES);
        CheckpointPart rank2 = shrink.rankPart(2, RULES);
        assertEquals(List.of("replica/params", "history", "accuracy", "exchange/memory", "exchange/switched",
                "exchange/ae", "traffic"), rank0.sectionNames(), "rank 0 keeps the replica, the history, the accuracy");
        assertEquals(List.of("exchange/memory", "exchange/switched", "exchange/ae", "traffic"), rank2.sectionNames());
        assertEquals(9, rank0.section("exchange/ae").getInt(), "rank 0 keeps its own");
        assertEquals(1, rank2.section("exchange/ae").getInt(), "the others the shipped copy");
        assertArrayEquals(new float[] {1, 2, 3}, rank0.floats("replica/params", 3));
        assertArrayEquals(Regroup.memoryOf(memories(4, 5), 2, 3), rank2.floats("exchange/memory", 5));
        assertTrue(rank2.section("exchange/switched").getBoolean());
        // rank 0 carries the retired rank 3's counters, so the run's totals count its bytes
        assertEquals(100 + 400, rank0.longs("traffic", TrafficMeter.ROW_LENGTH)[0]);
        assertEquals(300, rank2.longs("traffic", TrafficMeter.ROW_LENGTH)[0]);
        assertTrue(rank0 == shrink.rankPart(0, RULES), "built once, shared by the ranks of one process");

        Regroup grow = regroup(c, 6);
        CheckpointPart rank5 = grow.rankPart(5, RULES);
        assertEquals(0, rank5.longs("traffic", TrafficMeter.ROW_LENGTH)[0], "a new rank starts its counters at 0");
        assertArrayEquals(Regroup.memoryOf(memories(4, 5), 5, 6), rank5.floats("exchange/memory", 5));
        assertEquals(100, grow.rankPart(0, RULES).longs("traffic", TrafficMeter.ROW_LENGTH)[0]);
        assertEquals(1, rank5.section("exchange/ae").getInt(), "a new rank gets the shipped copy");
        assertFalse(rank5.has("replica/params"));
    }

    @Test
    void whatHasNoRuleOrDisagreesShouldBeRefusedNamingIt(@TempDir Path dir) throws IOException {
        Checkpoint unknown = checkpoint(dir.resolve("a"), true, "exchange/velocity");
        assertEquals("cannot resume step-000010 of K = 4 at K = 3: section 'exchange/velocity' of rank-0.lgcc has no"
                + " rule for another number of ranks (its state does not say how it changes size; it declares"
                + " exchange/memory, exchange/switched, exchange/ae)", assertThrows(CheckpointException.class,
                () -> regroup(unknown, 3).rankPart(1, RULES)).getMessage());
        Checkpoint differing = checkpoint(dir.resolve("b"), false, null);
        assertEquals("cannot resume step-000010 at K = 5: section 'exchange/switched' should be the same on every"
                + " rank, and rank 3's differs from rank 0's", assertThrows(CheckpointException.class,
                () -> regroup(differing, 5).rankPart(0, RULES)).getMessage());
        CheckpointDirectory one = CheckpointDirectory.in(dir.resolve("one"));
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
        b.section("exchange/ae").putInt(9);
        b.section(Checkpointing.TRAFFIC).putLongs(new long[TrafficMeter.ROW_LENGTH]);
        PartInfo only = one.writeRankPart(10, 0, b.build());
        Checkpoint single = one.writeManifest(new CheckpointManifest("regroup", 10, Stage.TOP_K, new RunSignature(1, 0,
                new ModelIdentity(3, "sha256:00"), Map.of()), List.of(only)));
        assertEquals("cannot resume step-000010 of K = 1 at K = 2: section 'exchange/ae' is rank 0's own, and no other"
                + " rank holds the copy it ships, which a new rank would need", assertThrows(CheckpointException.class,
                () -> regroup(single, 2).rankPart(1, RULES)).getMessage());
        Checkpoint fine = checkpoint(dir.resolve("c"), true, null);
        assertEquals("cannot resume step-000010 of K = 4 at K = 2: LGC-X keeps one decoder per worker",
                assertThrows(CheckpointException.class, () -> regroup(fine, 2).rankPart(0,
                        Regrouping.refuse("LGC-X keeps one decoder per worker"))).getMessage());
    }

    /**
     * A checkpoint of 2 ranks and 3 services after step 10: service 0 with a state section (LGC-PS's shard 0), each
     * service its counters ({@code 1000, 10, 20}); service 2 also a section of state when {@code stateOn2}.
     */
    private static Checkpoint sharded(Path dir, boolean stateOn2) throws IOException {
        CheckpointDirectory d = CheckpointDirectory.in(dir);
        List<PartInfo> parts = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
            b.section("exchange/memory").putFloats(new float[] {r, r + 1});
            b.section(Checkpointing.TRAFFIC).putLongs(new long[TrafficMeter.ROW_LENGTH]);
            parts.add(d.writeRankPart(10, r, b.build()));
        }
        long[] counted = {1000, 10, 20};
        for (int s = 0; s < 3; s++) {
            CheckpointPart.Builder b = CheckpointPart.builder(PartKind.SERVER);
            if (s == 0 || (s == 2 && stateOn2)) {
                b.section("service/decoders").putInt(7 + s);
            }
            long[] traffic = new long[TrafficMeter.ROW_LENGTH];
            traffic[0] = counted[s];
            traffic[1] = 1;
            b.section(Checkpointing.TRAFFIC).putLongs(traffic);
            parts.add(d.writeServerPart(10, s, b.build()));
        }
        RunSignature run = new RunSignature(2, 3, new ModelIdentity(2, "sha256:00"), Map.of("training.workers", "2"));
        return d.writeManifest(new CheckpointManifest("sharded", 10, Stage.TOP_K, run, parts));
    }

    private static long[] traffic(CheckpointPart part) throws CheckpointException {
        return part.longs(Checkpointing.TRAFFIC, TrafficMeter.ROW_LENGTH);
    }

    @Test
    void fewerServicesShouldLeaveTheirCountersToServiceZeroAndTheRanksAsTheyWere(@TempDir Path dir)
            throws IOException {
        Checkpoint c = sharded(dir, false);
        Regroup one = new Regroup(c, 2, 1);
        CheckpointPart zero = one.servicePart(0, Regrouping.NONE, true);
        assertEquals(1030, traffic(zero)[0], "service 0 counts the bytes of the services no longer there");
        assertEquals(3, traffic(zero)[1]);
        assertArrayEquals(c.serverPart(0).bytes("service/decoders"), zero.bytes("service/decoders"), "its state kept");
        assertArrayEquals(traffic(c.serverPart(1)), traffic(new Regroup(c, 2, 2).servicePart(1, Regrouping.NONE,
                false)), "a kept service keeps its counters");
        for (int r = 0; r < 2; r++) {
            // the same K: no rule is asked for, not even one a resize of K would need
            assertArrayEquals(c.rankPart(r).bytes("exchange/memory"), one.rankPart(r, Regrouping.refuse("no K"))
                    .bytes("exchange/memory"), "rank " + r);
        }
    }

    @Test
    void moreServicesShouldStartTheNewOnesWithNothing(@TempDir Path dir) throws IOException {
        Checkpoint c = sharded(dir, false);
        Regroup four = new Regroup(c, 2, 4);
        CheckpointPart added = four.servicePart(3, Regrouping.NONE, false);
        assertEquals(List.of(Checkpointing.TRAFFIC), added.sectionNames());
        assertArrayEquals(new long[TrafficMeter.ROW_LENGTH], traffic(added));
        assertEquals(1000, traffic(four.servicePart(0, Regrouping.NONE, true))[0], "service 0 as it was");
        assertEquals("cannot resume step-000010 of S = 3 at S = 4: service 3 is new and carries state from step to step,"
                + " which the checkpoint has none of for it", assertThrows(CheckpointException.class,
                () -> four.servicePart(3, Regrouping.NONE, true)).getMessage());
    }

    @Test
    void aServiceWithStateShouldNotBeDropped(@TempDir Path dir) throws IOException {
        Checkpoint c = sharded(dir, true);
        assertEquals("cannot resume step-000010 of S = 3 at S = 2: service 2, no longer there, holds section"
                + " 'service/decoders', state no other service would carry on", assertThrows(CheckpointException.class,
                () -> new Regroup(c, 2, 2).servicePart(0, Regrouping.NONE, true)).getMessage());
    }
}
