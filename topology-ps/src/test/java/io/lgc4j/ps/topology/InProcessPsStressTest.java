package io.lgc4j.ps.topology;

import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.compress.DgcCompressor;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.ReplicaModel;
import io.lgc4j.core.train.TestModels;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.core.train.TrainingRuntime;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.learning.config.Sgd;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The in-process parameter server under stress: many short steps of a tiny model (so the exchange, the barrier, the
 * CPU turns and rank 0's collection of reports dominate), K up to 8, one and several shards, dense and compressed,
 * while spinning threads keep every core busy. A run that does not finish within its bound is a hang: the test dumps
 * every thread's stack and fails. An in-process PS run once hung under load and was never explained; this is the
 * test that would have caught it. {@code STRESS_STEPS} (environment) raises the steps for a longer campaign.
 */
class InProcessPsStressTest {

    private static final int STEPS = Integer.parseInt(System.getenv().getOrDefault("STRESS_STEPS", "30"));
    private static final long BOUND_SECONDS = 120;

    @Test
    void shouldFinishEveryRunUnderCpuLoadWithIdenticalReplicas() throws Exception {
        AtomicBoolean load = new AtomicBoolean(true);
        List<Thread> spinners = new ArrayList<>();
        for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
            Thread t = new Thread(() -> {
                long x = 0;
                while (load.get()) {
                    x += System.nanoTime() % 7; // busy: the ranks compete with these for every core
                }
                if (x == 42) {
                    System.out.print("");
                }
            }, "stress-load-" + i);
            t.setDaemon(true);
            t.start();
            spinners.add(t);
        }
        try {
            for (int k : new int[] {2, 4, 8}) {
                for (int servers : new int[] {1, 2}) {
                    run(k, servers, false, 1);
                    run(k, servers, true, 2);
                }
            }
        } finally {
            load.set(false);
            for (Thread t : spinners) {
                t.join();
            }
        }
    }

    /** One run of {@link #STEPS} steps; fails with every thread's stack when it takes longer than the bound. */
    private static void run(int k, int servers, boolean dgc, int computeConcurrency) throws Exception {
        String label = "K=" + k + " S=" + servers + (dgc ? " DGC" : " dense") + " concurrency " + computeConcurrency;
        Topology topology = new ParameterServerTopology(dgc ? new DgcCompressor(0.1, 0, 0, 0) : null,
                IndexCodecs.defaultCodec(), servers, 64);
        DistributedTrainer trainer = DistributedTrainer.builder().model(TestModels.mlp(3, new Sgd(0.05)))
                .data(TestModels.data(k * 4 * 8, 5)).workers(k).batchSizePerWorker(4).topology(topology)
                .stages(dgc ? StageSchedule.denseWarmup(STEPS / 10) : StageSchedule.ALWAYS_FULL).maxSteps(STEPS)
                .runtime(TrainingRuntime.inProcess().computeConcurrency(computeConcurrency)).seed(7).build();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<TrainingResult> fit = pool.submit(() -> trainer.fit(STEPS));
            TrainingResult result;
            try {
                result = fit.get(BOUND_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException hang) {
                StringBuilder dump = new StringBuilder();
                for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
                    dump.append(info);
                }
                System.err.println(dump);
                fail(label + ": no end after " + BOUND_SECONDS + " s (every thread's stack is on stderr)");
                return;
            }
            assertEquals(STEPS, result.steps().size(), label);
            List<ReplicaModel> replicas = trainer.replicas();
            for (int r = 1; r < k; r++) {
                assertArrayEquals(replicas.get(0).params().toFloatVector(), replicas.get(r).params().toFloatVector(),
                        label + ": replica " + r);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
