package io.lgc4j.spark;

import org.apache.spark.BarrierTaskContext;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The one address exchange of a barrier task: each endpoint the task runs (a rank, and its co-located shard) offers
 * the port it already listens on; once all have, one {@code allGather} (Spark's barrier RPC, which polls with a 1 s
 * sleep: used once, never for training traffic) gives every task every endpoint's address, and the run's agreement
 * is checked: the same job, attempt and checkpoint to resume from everywhere, every endpoint exactly once.
 *
 * <p>Message: {@code lgc-spark/1 job=J attempt=A resume=S e@host:port ...}.
 *
 * <p>With mutual TLS, an endpoint's TLS settings must be known when it listens, before its port is: the tasks first
 * exchange their CA certificates in an allGather of their own ({@link #gatherCertificates}, message {@code
 * lgc-spark-tls/1 job=J attempt=A ca=BASE64-PEM}), once per task, before its endpoints listen.
 */
final class TaskRendezvous {
    static final String VERSION = "lgc-spark/1";
    static final String TLS_VERSION = "lgc-spark-tls/1";

    private final BarrierTaskContext context;
    private final int localEndpoints;
    private final int endpoints;
    private final int job;
    private final int attempt;
    private final long resume;
    private final Map<Integer, String> offered = new TreeMap<>();
    private List<InetSocketAddress> table;
    private RuntimeException failure;
    private long gatheredMs;

    /**
     * @param localEndpoints how many endpoints this task runs
     * @param endpoints      all endpoints of the run
     * @param resume         the checkpoint this task resumes from, or -1
     */
    TaskRendezvous(BarrierTaskContext context, int localEndpoints, int endpoints, int job, int attempt, long resume) {
        this.context = context;
        this.localEndpoints = localEndpoints;
        this.endpoints = endpoints;
        this.job = job;
        this.attempt = attempt;
        this.resume = resume;
    }

    /**
     * Offers {@code endpoint}'s address and returns every endpoint's, by endpoint, once the task's other endpoints
     * have offered theirs and the stage's allGather is done.
     */
    synchronized List<InetSocketAddress> offer(int endpoint, String host, int port) {
        offered.put(endpoint, endpoint + "@" + host + ":" + port);
        if (offered.size() == localEndpoints) {
            try {
                String[] all = context.allGather(VERSION + " job=" + Integer.toUnsignedString(job) + " attempt="
                        + attempt + " resume=" + resume + " " + String.join(" ", offered.values()));
                gatheredMs = System.currentTimeMillis();
                table = parse(all, job, attempt, endpoints);
            } catch (RuntimeException e) {
                failure = e;
            }
            notifyAll();
        }
        while (table == null && failure == null) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the task's other endpoints bound", e);
            }
        }
        if (failure != null) {
            throw failure;
        }
        return table;
    }

    /**
     * Sends this task's CA certificate ({@link TaskCertificates#caToken}) to every task of the stage and returns
     * every task's, by partition: the stage's allGather before the address exchange, when the links use TLS.
     */
    static List<String> gatherCertificates(BarrierTaskContext context, int job, int attempt, String caToken) {
        return parseCertificates(context.allGather(TLS_VERSION + " job=" + Integer.toUnsignedString(job)
                + " attempt=" + attempt + " ca=" + caToken), job, attempt);
    }

    /**
     * Every task's CA certificate token from the tasks' messages, by partition.
     *
     * @throws IllegalStateException when a task sent another message or runs another job or attempt
     */
    static List<String> parseCertificates(String[] messages, int job, int attempt) {
        List<String> tokens = new ArrayList<>(messages.length);
        for (int task = 0; task < messages.length; task++) {
            String[] parts = messages[task].strip().split(" ");
            if (parts.length != 4 || !parts[0].equals(TLS_VERSION)) {
                throw new IllegalStateException("task " + task + " sent '" + shorten(messages[task]) + "', expected '"
                        + TLS_VERSION + " job=… attempt=… ca=…': every task must run with TLS, from the same"
                        + " lgc-spark jar");
            }
            check(task, messages[task], parts, job, attempt);
            String token = value(parts[3], "ca", messages[task]);
            if (token.isEmpty()) {
                throw new IllegalStateException("task " + task + " sent no CA certificate, expected ca=<base64 PEM>");
            }
            tokens.add(token);
        }
        return tokens;
    }

    private static String shorten(String message) {
        return message.length() <= 120 ? message : message.substring(0, 120) + "…";
    }

    private static void check(int task, String message, String[] parts, int job, int attempt) {
        String jobText = value(parts[1], "job", message);
        if (!jobText.equals(Integer.toUnsignedString(job))) {
            throw new IllegalStateException("task " + task + " runs job " + jobText + ", this task job "
                    + Integer.toUnsignedString(job));
        }
        int theirAttempt = Integer.parseInt(value(parts[2], "attempt", message));
        if (theirAttempt != attempt) {
            throw new IllegalStateException("task " + task + " runs stage attempt " + theirAttempt
                    + ", this task attempt " + attempt);
        }
    }

    /** When the allGather returned (0 before). */
    synchronized long gatheredMs() {
        return gatheredMs;
    }

    /**
     * Every endpoint's address from the tasks' messages, by partition.
     *
     * @throws IllegalStateException when the tasks disagree or an endpoint is missing or doubled
     */
    static List<InetSocketAddress> parse(String[] messages, int job, int attempt, int endpoints) {
        InetSocketAddress[] table = new InetSocketAddress[endpoints];
        Long resume = null;
        int resumeTask = -1;
        for (int task = 0; task < messages.length; task++) {
            String[] parts = messages[task].strip().split(" ");
            if (parts.length < 5 || !parts[0].equals(VERSION)) {
                throw new IllegalStateException("task " + task + " sent '" + messages[task] + "', expected '"
                        + VERSION + " job=… attempt=… resume=… endpoint@host:port…': every executor must run"
                        + " the same lgc-spark jar");
            }
            check(task, messages[task], parts, job, attempt);
            long theirResume = Long.parseLong(value(parts[3], "resume", messages[task]));
            if (resume == null) {
                resume = theirResume;
                resumeTask = task;
            } else if (resume != theirResume) {
                throw new IllegalStateException("the tasks of stage attempt " + attempt + " disagree on the checkpoint"
                        + " to resume from: task " + resumeTask + " " + describe(resume) + ", task " + task + " "
                        + describe(theirResume) + " (a task of the failed attempt may still have been writing one);"
                        + " the next attempt will agree");
            }
            for (int i = 4; i < parts.length; i++) {
                String entry = parts[i];
                int at = entry.indexOf('@');
                int colon = entry.lastIndexOf(':');
                if (at < 1 || colon < at) {
                    throw new IllegalStateException("task " + task + " sent a bad address '" + entry
                            + "', expected endpoint@host:port");
                }
                int endpoint = Integer.parseInt(entry.substring(0, at));
                if (endpoint < 0 || endpoint >= endpoints) {
                    throw new IllegalStateException("task " + task + " offers endpoint " + endpoint + ", expected 0.."
                            + (endpoints - 1));
                }
                if (table[endpoint] != null) {
                    throw new IllegalStateException("endpoint " + endpoint + " is offered twice ("
                            + table[endpoint].getHostString() + ":" + table[endpoint].getPort() + " and " + entry + ")");
                }
                String host = entry.substring(at + 1, colon);
                int port = Integer.parseInt(entry.substring(colon + 1));
                table[endpoint] = InetSocketAddress.createUnresolved(host, port);
            }
        }
        List<InetSocketAddress> list = new ArrayList<>(endpoints);
        for (int e = 0; e < endpoints; e++) {
            if (table[e] == null) {
                throw new IllegalStateException("no task offers endpoint " + e + " of " + endpoints);
            }
            InetSocketAddress a = table[e];
            list.add(new InetSocketAddress(a.getHostString(), a.getPort()));
        }
        return list;
    }

    private static String describe(long resume) {
        return resume < 0 ? "starts at step 0" : "resumes after step " + resume;
    }

    private static String value(String part, String key, String message) {
        if (!part.startsWith(key + "=")) {
            throw new IllegalStateException("expected " + key + "=… in '" + message + "'");
        }
        return part.substring(key.length() + 1);
    }
}
