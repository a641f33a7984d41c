package io.lgc4j.core.train;

import io.lgc4j.core.data.DataSource;
import io.lgc4j.core.data.Shard;
import io.lgc4j.core.metrics.Timeline;

import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * One worker's batches of one epoch, read from its {@link DataSource} ahead of the steps that use them: on a daemon
 * thread of its own ({@code lgc-data-r<rank>}) into a queue of {@code prefetch} batches, or on the rank's own thread
 * when {@code prefetch} is 0. At most {@code prefetch + 1} batches are in memory besides the one being computed.
 * Reading ahead changes when batches are read, never which: the run is the same bit for bit. Every batch is checked:
 * its size must be the run's batch size, it must carry no masks, and the source must give as many batches as the
 * epoch has steps.
 */
final class BatchReader implements AutoCloseable {
    /** A failure of the reading thread, rethrown on the rank's. */
    private record Failure(RuntimeException error) {
    }

    private final Shard shard;
    private final int batches;
    private final DataSetIterator direct;     // prefetch 0
    private final BlockingQueue<Object> queue; // prefetch > 0: DataSet or Failure
    private final Thread thread;
    private final Timeline timeline;
    private int taken;

    private BatchReader(DataSource source, Shard shard, int batches, int prefetch, Timeline timeline) {
        this.shard = shard;
        this.timeline = timeline;
        this.batches = batches;
        if (prefetch == 0) {
            this.direct = open(source, shard);
            this.queue = null;
            this.thread = null;
        } else {
            this.direct = null;
            this.queue = new ArrayBlockingQueue<>(prefetch);
            this.thread = new Thread(() -> readAhead(source), "lgc-data-r" + shard.rank());
            thread.setDaemon(true);
            thread.start();
        }
    }

    /**
     * Opens rank {@code shard.rank()}'s shard and reads its first {@code batches} batches, ahead by {@code prefetch}.
     */
    static BatchReader open(DataSource source, Shard shard, int batches, int prefetch) {
        return open(source, shard, batches, prefetch, Timeline.NOOP);
    }

    /** As {@link #open(DataSource, Shard, int, int)}, recording each read as a {@code read batch} span. */
    static BatchReader open(DataSource source, Shard shard, int batches, int prefetch, Timeline timeline) {
        return new BatchReader(source, shard, batches, prefetch, timeline);
    }

    /** The next batch, checked. */
    DataSet next() {
        int step = shard.fromStep() + taken;
        DataSet batch;
        if (direct != null) {
            batch = read(direct, step, Timeline.RANK_THREAD);
        } else {
            Object item;
            try {
                item = queue.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("rank " + shard.rank() + " was interrupted waiting for its data", e);
            }
            if (item instanceof Failure f) {
                throw f.error();
            }
            batch = (DataSet) item;
        }
        taken++;
        return batch;
    }

    private void readAhead(DataSource source) {
        try {
            DataSetIterator it = open(source, shard);
            for (int i = 0; i < batches; i++) {
                queue.put(read(it, shard.fromStep() + i, Timeline.DATA_THREAD));
            }
        } catch (InterruptedException e) {
            // closed
        } catch (RuntimeException e) {
            queue.clear();
            queue.offer(new Failure(e));
        } catch (Error e) {
            queue.clear();
            queue.offer(new Failure(new IllegalStateException("rank " + shard.rank() + "'s data reader failed: " + e,
                    e)));
        }
    }

    private static DataSetIterator open(DataSource source, Shard shard) {
        try {
            return source.open(shard);
        } catch (IOException e) {
            throw new UncheckedIOException("rank " + shard.rank() + " cannot open its data for epoch "
                    + shard.epoch() + " (" + source.describe() + "): " + e.getMessage(), e);
        }
    }

    /** Reads and checks the batch of {@code step}, recorded on thread {@code tid} of the timeline. */
    private DataSet read(DataSetIterator it, int step, int tid) {
        if (!timeline.covers(step)) {
            return read(it, step);
        }
        long start = System.nanoTime();
        DataSet batch = read(it, step);
        timeline.span(tid, "read batch", "data", start, System.nanoTime(), Map.of("step", step));
        return batch;
    }

    /** Reads and checks the batch of {@code step}. */
    private DataSet read(DataSetIterator it, int step) {
        if (!it.hasNext()) {
            throw new IllegalStateException(String.format("rank %d's data ended after %,d of %,d batches in epoch %d",
                    shard.rank(), step, shard.fromStep() + batches,
                    shard.epoch()));
        }
        DataSet batch = it.next();
        long rows = batch.getFeatures() == null ? 0 : batch.getFeatures().size(0);
        if (rows != shard.batchSize() || batch.getLabels() == null || batch.getLabels().size(0) != rows) {
            throw new IllegalStateException(String.format("rank %d's data gave a batch of %d rows%s at step %d of"
                            + " epoch %d, expected %d", shard.rank(), rows,
                    batch.getLabels() == null ? " and no labels" : batch.getLabels().size(0) != rows
                            ? " (" + batch.getLabels().size(0) + " label rows)" : "",
                    step, shard.epoch(), shard.batchSize()));
        }
        if (batch.getFeaturesMaskArray() != null || batch.getLabelsMaskArray() != null) {
            throw new IllegalStateException("rank " + shard.rank() + "'s data gave a batch with a mask at step " + step
                    + " of epoch " + shard.epoch() + "; masks are not carried to the ranks yet");
        }
        return batch;
    }

    @Override
    public void close() {
        if (thread != null) {
            thread.interrupt();
            queue.clear();
        }
    }
}
