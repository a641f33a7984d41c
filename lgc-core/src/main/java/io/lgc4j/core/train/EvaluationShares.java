package io.lgc4j.core.train;

import io.lgc4j.core.data.MemorySource;

import org.nd4j.evaluation.classification.ConfusionMatrix;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.adapter.SingletonDataSetIterator;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

import java.util.List;

/**
 * The evaluation data, read once into its batches and dealt to the K workers: worker r evaluates batches r, r + K,
 * r + 2K, … and rank 0 adds the counts. The replicas are identical and each batch is evaluated whole, as one
 * evaluator would, so the sum is the accuracy of one replica on all the data, bit for bit, in about 1/K of the time.
 *
 * <pre>{@code
 * EvaluationShares shares = EvaluationShares.read(testIterator);
 * RunReport.Evaluated mine = shares.evaluate(replica, rank, workers);   // every worker, after the same step
 * double accuracy = EvaluationShares.accuracy(List.of(mine, fromRank1, fromRank2, fromRank3));
 * }</pre>
 *
 * <p>Read-only once read: the workers of the in-process runtime share one. {@link #lazy} reads the data at the first
 * evaluation, so that a process hosting only a service endpoint never reads it.
 */
final class EvaluationShares {

    private final DataSetIterator source; // null once read
    private volatile List<DataSet> batches;

    private EvaluationShares(List<DataSet> batches, DataSetIterator source) {
        this.batches = batches == null ? null : List.copyOf(batches);
        this.source = source;
    }

    /** Resets {@code data} (when it can) and reads every batch it gives, with its preprocessor applied. */
    static EvaluationShares read(DataSetIterator data) {
        return new EvaluationShares(readAll(data), null);
    }

    /** The shares of {@code data}, read as {@link #read} does when a worker first evaluates. */
    static EvaluationShares lazy(DataSetIterator data) {
        return new EvaluationShares(null, data);
    }

    private List<DataSet> batches() {
        List<DataSet> read = batches;
        if (read == null) {
            synchronized (this) {
                read = batches;
                if (read == null) {
                    read = List.copyOf(readAll(source));
                    batches = read;
                }
            }
        }
        return read;
    }

    private static List<DataSet> readAll(DataSetIterator data) {
        List<DataSet> batches = MemorySource.batches(data);
        if (batches.isEmpty()) {
            throw new IllegalArgumentException("the evaluation data gave no batch: expected at least one");
        }
        return batches;
    }

    /** How many batches the data has. */
    int batchCount() {
        return batches().size();
    }

    /** Worker {@code rank}'s share of {@code workers}, evaluated on {@code replica}: correct and total examples. */
    RunReport.Evaluated evaluate(ReplicaModel replica, int rank, int workers) {
        long correct = 0;
        long examples = 0;
        List<DataSet> batches = batches();
        for (int b = rank; b < batches.size(); b += workers) {
            Evaluation eval = replica.evaluate(new SingletonDataSetIterator(batches.get(b)));
            ConfusionMatrix<Integer> confusion = eval.getConfusion();
            for (Integer c : confusion.getClasses()) {
                correct += confusion.getCount(c, c);
            }
            examples += eval.getNumRowCounter();
        }
        return new RunReport.Evaluated(correct, examples);
    }

    /** The accuracy of the shares together: their correct examples over their examples. */
    static double accuracy(List<RunReport.Evaluated> shares) {
        long correct = 0;
        long examples = 0;
        for (RunReport.Evaluated share : shares) {
            correct += share.correct();
            examples += share.examples();
        }
        return correct / (double) examples;
    }
}
