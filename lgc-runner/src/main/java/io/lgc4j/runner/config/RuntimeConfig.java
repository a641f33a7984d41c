package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The {@code runtime} section: where the ranks live and how long anyone waits for a peer. Rank, rank 0's address and
 * token come from the environment ({@code lgc worker --help}), never from this file: one config serves every process.
 * <pre>{@code
 * runtime:
 *   type: in-process           # in-process (default: threads of one JVM) | tcp (one process per rank)
 *   timeoutMs: 60000           # tcp: deadline of any one receive once training runs
 *   firstStepTimeoutMs: 300000 # tcp: deadline of the first receive from each peer (data loading, warm-up)
 *   rendezvousTimeoutMs: 120000  # tcp: how long a process waits for all others to join
 *   heartbeatMs: 1000          # tcp: a heartbeat on a link idle this long
 *   peerIdleTimeoutMs: 5000    # tcp: a peer silent this long (not even a heartbeat) is lost
 * }</pre>
 * @param type                in-process or tcp
 * @param timeoutMs           deadline of one receive in steady state
 * @param firstStepTimeoutMs  deadline of the first receive from each peer
 * @param rendezvousTimeoutMs how long joining may take
 * @param heartbeatMs         heartbeat interval on an idle link
 * @param peerIdleTimeoutMs   silence after which a peer is lost
 */
@JsonPropertyOrder({"type", "timeoutMs", "firstStepTimeoutMs", "rendezvousTimeoutMs", "heartbeatMs",
    "peerIdleTimeoutMs"})
public record RuntimeConfig(RuntimeType type, long timeoutMs, long firstStepTimeoutMs, long rendezvousTimeoutMs,
                            long heartbeatMs, long peerIdleTimeoutMs) {

    /** Default of {@code runtime.timeoutMs}. */
    public static final long DEFAULT_TIMEOUT_MS = 60_000;
    /** Default of {@code runtime.firstStepTimeoutMs}. */
    public static final long DEFAULT_FIRST_STEP_TIMEOUT_MS = 300_000;
    /** Default of {@code runtime.rendezvousTimeoutMs}. */
    public static final long DEFAULT_RENDEZVOUS_TIMEOUT_MS = 120_000;
    /** Default of {@code runtime.heartbeatMs}. */
    public static final long DEFAULT_HEARTBEAT_MS = 1_000;
    /** Default of {@code runtime.peerIdleTimeoutMs}. */
    public static final long DEFAULT_PEER_IDLE_TIMEOUT_MS = 5_000;

    /**
     * Checks every component; the first bad one is reported by its key.
     *
     * @throws ConfigException if a component is missing or out of range, or the idle timeout does not exceed
     *                         the heartbeat interval
     */
    public RuntimeConfig {
        Checks.required("runtime.type", type);
        Checks.positive("runtime.timeoutMs", timeoutMs);
        Checks.positive("runtime.firstStepTimeoutMs", firstStepTimeoutMs);
        Checks.positive("runtime.rendezvousTimeoutMs", rendezvousTimeoutMs);
        Checks.positive("runtime.heartbeatMs", heartbeatMs);
        Checks.positive("runtime.peerIdleTimeoutMs", peerIdleTimeoutMs);
        if (peerIdleTimeoutMs <= 2 * heartbeatMs) {
            throw ConfigException.forKey("runtime.peerIdleTimeoutMs", "must exceed twice runtime.heartbeatMs ("
                    + heartbeatMs + "), or a live peer between two heartbeats looks lost; found " + peerIdleTimeoutMs);
        }
    }

    /** @return the runtime section with every key at its default (in-process) */
    public static RuntimeConfig defaults() {
        return new RuntimeConfig(RuntimeType.IN_PROCESS, DEFAULT_TIMEOUT_MS, DEFAULT_FIRST_STEP_TIMEOUT_MS,
                DEFAULT_RENDEZVOUS_TIMEOUT_MS, DEFAULT_HEARTBEAT_MS, DEFAULT_PEER_IDLE_TIMEOUT_MS);
    }

    /**
     * @param newType where the ranks live
     * @return this section with {@code type} replaced
     */
    public RuntimeConfig withType(RuntimeType newType) {
        return new RuntimeConfig(newType, timeoutMs, firstStepTimeoutMs, rendezvousTimeoutMs, heartbeatMs,
                peerIdleTimeoutMs);
    }

    @JsonCreator
    private static RuntimeConfig fromYaml(@JsonProperty("type") RuntimeType type,
                                          @JsonProperty("timeoutMs") Long timeoutMs,
                                          @JsonProperty("firstStepTimeoutMs") Long firstStepTimeoutMs,
                                          @JsonProperty("rendezvousTimeoutMs") Long rendezvousTimeoutMs,
                                          @JsonProperty("heartbeatMs") Long heartbeatMs,
                                          @JsonProperty("peerIdleTimeoutMs") Long peerIdleTimeoutMs) {
        return new RuntimeConfig(
                Checks.orDefault(type, RuntimeType.IN_PROCESS),
                Checks.orDefault(timeoutMs, DEFAULT_TIMEOUT_MS),
                Checks.orDefault(firstStepTimeoutMs, DEFAULT_FIRST_STEP_TIMEOUT_MS),
                Checks.orDefault(rendezvousTimeoutMs, DEFAULT_RENDEZVOUS_TIMEOUT_MS),
                Checks.orDefault(heartbeatMs, DEFAULT_HEARTBEAT_MS),
                Checks.orDefault(peerIdleTimeoutMs, DEFAULT_PEER_IDLE_TIMEOUT_MS));
    }
}
