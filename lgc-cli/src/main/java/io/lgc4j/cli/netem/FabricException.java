package io.lgc4j.cli.netem;

/**
 * A host command that sets up or tears down emulation ({@code ip}, {@code tc}, a cgroup file) failed, or the process
 * lacks the privilege it needs. The message names the command and what it printed on standard error.
 */
public final class FabricException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** A failure described by {@code message}. */
    public FabricException(String message) {
        super(message);
    }

    /** A failure described by {@code message}, caused by {@code cause}. */
    public FabricException(String message, Throwable cause) {
        super(message, cause);
    }
}
