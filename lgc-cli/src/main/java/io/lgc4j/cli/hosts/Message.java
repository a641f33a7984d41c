package io.lgc4j.cli.hosts;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One message between a host's {@link Agent} and the {@link Store}, a line of JSON on the {@link ControlLink}; the
 * fields a type does not use are null.
 *
 * <ul>
 *   <li>{@code JOIN} (agent): {@code host}, {@code slots} (its worker processes), {@code port} (a free port for rank 0,
 *       should it hold rank 0), {@code advertise} (the address the other hosts dial);</li>
 *   <li>{@code ROUND} (store): round {@code round} of the job: K = {@code workers}, this host's ranks from
 *       {@code first}, the parameter-server processes here when {@code services} (their count {@code servers}), rank
 *       0 at {@code advertise}:{@code port}, the data links' {@code job}, the {@code runDir} (shared by every host:
 *       its file {@code .lgc-store} holds {@code marker}) and the checkpoint to resume from ({@code resumeStep}, -1:
 *       none; {@code allowResize});</li>
 *   <li>{@code STOP} (store): stop round {@code round}'s processes ({@code why});</li>
 *   <li>{@code DONE} (agent): round {@code round} ended here with {@code status}; {@code why} names the process that
 *       failed first ({@code failedItself}: it did not merely lose a peer); {@code stopped}: the processes were stopped
 *       as the store asked, not finished; {@code port}, a free port for the next round;</li>
 *   <li>{@code END} (store): the job is over with {@code status} ({@code why});</li>
 *   <li>{@code BEAT} (both): still here.</li>
 * </ul>
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Message(String type, Integer round, String host, Integer slots, Integer port, String advertise,
                      Integer workers, Integer first, Boolean services, Integer servers, String job, String runDir,
                      Long resumeStep, Boolean allowResize, Integer status, Boolean failedItself, Boolean stopped,
                      String why, String marker) {

    static Message join(String host, int slots, int port, String advertise) {
        return new Message("JOIN", null, host, slots, port, advertise, null, null, null, null, null, null, null, null,
                null, null, null, null, null);
    }

    static Message round(int round, int workers, int first, boolean services, int servers, String masterAddress,
                         int masterPort, String job, String runDir, String marker, long resumeStep,
                         boolean allowResize) {
        return new Message("ROUND", round, null, null, masterPort, masterAddress, workers, first, services, servers,
                job, runDir, resumeStep, allowResize, null, null, null, null, marker);
    }

    static Message stop(int round, String why) {
        return new Message("STOP", round, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, why, null);
    }

    static Message done(int round, int status, boolean failedItself, String why, boolean stopped, int port) {
        return new Message("DONE", round, null, null, port, null, null, null, null, null, null, null, null, null,
                status, failedItself, stopped, why, null);
    }

    static Message end(int status, String why) {
        return new Message("END", null, null, null, null, null, null, null, null, null, null, null, null, null, status,
                null, null, why, null);
    }

    static final Message BEAT = new Message("BEAT", null, null, null, null, null, null, null, null, null, null, null,
            null, null, null, null, null, null, null);

    boolean is(String t) {
        return type.equals(t);
    }
}
