/**
 * The ring's protocol skeleton, shared by every method that runs on it: {@link io.lgc4j.ring.skeleton.RingEnd}
 * holds one rank's pieces — the dense step, the DENSE blocks' allreduce, frames broadcast from the step's leader
 * around the ring (its support's indices, LGC's scale), the shared-support values' allreduce — each written once.
 */
package io.lgc4j.ring.skeleton;
