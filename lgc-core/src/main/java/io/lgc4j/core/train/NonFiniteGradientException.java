package io.lgc4j.core.train;

/**
 * A rank computed a NaN or infinite gradient element; raised before the gradient leaves the rank, so it never
 * reaches another replica. The message names the rank, step, element and parameter block.
 */
public final class NonFiniteGradientException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates the exception with a message locating the element. */
    public NonFiniteGradientException(String message) {
        super(message);
    }
}
