package io.lgc4j.ps.skeleton;

import io.lgc4j.core.checkpoint.Persistent;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.ServiceLoop;
import io.lgc4j.core.comm.StepTag;

/**
 * The parameter server, for every method: it opens each step with worker 0's first frame, whose flags also say the
 * encoding of the step's values (so the server needs no setting for it); FULL steps are dense
 * (the gradients averaged in rank order and the mean broadcast); the other stages go to the method's {@link Step},
 * or are dense too when the method has none. One {@link #serveStep} serves one step, the method's work after its
 * last frame included.
 */
public final class PsServer implements ServiceLoop {

    /** A method's server side of a TOP_K or COMPRESSED step. */
    @FunctionalInterface
    public interface Step {
        /**
         * Serves the step {@code first} opened: {@code first} is worker 0's VALUES frame of its DENSE blocks, which
         * {@link PsServerEnd#denseMean} takes. When it returns the step is over: the runtime reports it and saves the
         * server's {@link #state} when a checkpoint is due.
         */
        void serve(Frame first, StepTag tag);

        /** What the method's server carries from step to step; by default nothing. */
        default Persistent state() {
            return Persistent.NONE;
        }

        /** See {@link ServiceLoop#notesLag()}; by default false. */
        default boolean notesLag() {
            return false;
        }

        /** See {@link ServiceLoop#awaitNotes(int)}; by default nothing to wait for. */
        default void awaitNotes(int step) {
        }
    }

    private final PsServerEnd end;
    private final Step compressed;
    private final Step warmup;

    /**
     * The step of a shard that serves only its DENSE pieces in TOP_K and COMPRESSED steps (another shard serves the
     * compressible blocks whole): their mean, broadcast.
     */
    public static Step denseOnly(PsServerEnd end) {
        return (first, tag) -> end.broadcast(end.denseMean(first, tag));
    }

    /**
     * @param end        the server's end
     * @param compressed the method's non-FULL step, or {@code null} for the dense server
     */
    public PsServer(PsServerEnd end, Step compressed) {
        this(end, compressed, null);
    }

    /**
     * A server whose FULL steps are a compressed warm-up's ({@link io.lgc4j.core.warmup.Warmup}): served by
     * {@code warmup}, which must keep no state across steps (the generic compressed server keeps none), so the
     * server's checkpoint is the method's alone.
     *
     * @param end        the server's end
     * @param compressed the method's non-FULL step, or {@code null} for the dense server
     * @param warmup     the FULL step, or {@code null} for the dense one
     */
    public PsServer(PsServerEnd end, Step compressed, Step warmup) {
        this.end = end;
        this.compressed = compressed;
        this.warmup = warmup;
        if (warmup != null && warmup.state() != Persistent.NONE) {
            throw new IllegalArgumentException("a warm-up's server step must keep no state, found " + warmup.state());
        }
    }

    @Override
    public Persistent state() {
        return compressed == null ? Persistent.NONE : compressed.state();
    }

    @Override
    public boolean notesLag() {
        return compressed != null && compressed.notesLag();
    }

    @Override
    public void awaitNotes(int step) {
        if (compressed != null) {
            compressed.awaitNotes(step);
        }
    }

    @Override
    public int serveStep() {
        Frame first = end.open();
        int step = first.step();
        if (first.stage() == Stage.FULL && warmup != null) {
            warmup.serve(first, new StepTag(step, first.stage(), ValueEncoding.of(first)));
        } else if (compressed == null || first.stage() == Stage.FULL) {
            end.serveFull(first);
        } else {
            compressed.serve(first, new StepTag(step, first.stage(), ValueEncoding.of(first)));
        }
        end.releaseReceived(); // the step's frames are decoded: a network transport reuses their buffers
        return step;
    }
}
