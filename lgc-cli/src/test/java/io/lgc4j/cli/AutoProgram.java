package io.lgc4j.cli;

import io.lgc4j.advise.AdviseSession;
import io.lgc4j.advise.Advisor;
import io.lgc4j.advise.MethodCandidate;
import io.lgc4j.core.data.MemorySource;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.ps.topology.ParameterServerTopology;
import io.lgc4j.ring.topology.RingTopology;

import org.nd4j.linalg.dataset.DataSet;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;

/**
 * A user's program choosing its method as {@code lgc launch --nproc K -- java … AutoProgram} starts it: its own MLP
 * and synthetic data, two candidates (the dense parameter server and the dense ring), {@link
 * Advisor.Builder#adviseFromEnvironment()} on every process, then the chosen candidate's trainer. Each process prints
 * {@code chosen <rank> <id> <checksums>}.
 */
public final class AutoProgram {

    private AutoProgram() {
    }

    /** Advises, trains the choice and prints it with the replica checksums. */
    public static void main(String[] args) throws IOException {
        DataSet data = LaunchedProgram.data();
        List<MethodCandidate> candidates = candidates();
        AdviseSession.Outcome advised = Advisor.builder().model(LaunchedProgram.net()).data(MemorySource.of(data))
                .batchSizePerWorker(16).seed(3).candidates(candidates)
                .log(new PrintStream(OutputStream.nullOutputStream())).adviseFromEnvironment();
        TrainingResult result = train(chosen(candidates, advised.chosen()), 2);
        System.out.println("chosen " + System.getenv().getOrDefault("LGC_RANK", "in-process") + " "
                + advised.chosen() + " " + String.join(",", result.replicaChecksums()));
    }

    static List<MethodCandidate> candidates() {
        return List.of(MethodCandidate.of("ps", "Dense PS", ParameterServerTopology::new),
                MethodCandidate.of("ring", "Dense ring", RingTopology::new));
    }

    static MethodCandidate chosen(List<MethodCandidate> candidates, String id) {
        return candidates.stream().filter(c -> c.id().equals(id)).findFirst().orElseThrow();
    }

    /** The chosen method's training: {@code workers} ranks in one JVM, LGC_WORLD_SIZE when launched. */
    static TrainingResult train(MethodCandidate method, int workers) {
        DataSet data = LaunchedProgram.data();
        return method.applyTo(DistributedTrainer.builder().model(LaunchedProgram.net()).data(data).workers(workers)
                .batchSizePerWorker(16).seed(3).fromEnvironment()).build().fit(2);
    }
}
