/**
 * The parameter server's protocol skeleton, shared by every method that runs on it. A step opens with worker 0's
 * first VALUES frame, whose stage tells the server how to serve it; FULL steps are dense on both sides
 * ({@link io.lgc4j.ps.skeleton.PsWorker}, {@link io.lgc4j.ps.skeleton.PsServer}); the other stages are served by the
 * method's {@link io.lgc4j.ps.skeleton.PsWorker.Step} and {@link io.lgc4j.ps.skeleton.PsServer.Step}, built from the
 * pieces of {@link io.lgc4j.ps.skeleton.PsWorkerEnd} and {@link io.lgc4j.ps.skeleton.PsServerEnd}: the DENSE region
 * pushed and averaged, the leader's support relayed, values averaged in rank order, the means broadcast.
 */
package io.lgc4j.ps.skeleton;
