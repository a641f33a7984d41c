package io.lgc4j.spark;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one barrier task sends back to the driver: who it was, where its time went ({@link Timeline}) and, from rank
 * 0's task, the run's result files.
 *
 * @param partition    the task's partition id
 * @param stageAttempt the barrier stage's attempt the task ran in (0 first)
 * @param host         the executor's host
 * @param endpoints    the endpoints the task ran (a rank, and its co-located shard)
 * @param resumedFrom  the checkpoint step the task resumed from, or -1 for step 0
 * @param timeline     when the task reached each point, on the executor's clock
 * @param tls          whether every link of its endpoints ran mutual TLS, as lgc-net reported it
 * @param files        rank 0's result files by name (config.yaml, metrics.csv, summary.json, model.zip, ...); empty
 *                     from the other tasks
 */
record TaskReport(int partition, int stageAttempt, String host, int[] endpoints, long resumedFrom, Timeline timeline,
                  boolean tls, LinkedHashMap<String, byte[]> files)
        implements Serializable {
    private static final long serialVersionUID = 1L;

    /**
     * Where a task's time went: wall-clock milliseconds of the executor's clock.
     *
     * @param startMs     when the task started
     * @param listeningMs when its first endpoint listened (data and model loaded, the trainer built)
     * @param gatheredMs  when the addresses' allGather returned
     * @param joinedMs    when every link of its endpoints was up
     * @param endMs       when training ended
     */
    record Timeline(long startMs, long listeningMs, long gatheredMs, long joinedMs, long endMs)
            implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    /** The files, by name. */
    Map<String, byte[]> resultFiles() {
        return files;
    }
}
