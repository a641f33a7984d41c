/**
 * Checkpoints: the byte format of a run's saved state and the files it lives in. A checkpoint is a directory
 * {@code <runDir>/checkpoints/step-000124/} of part files, one per rank and per service, then {@code manifest.lgcc},
 * each a {@link io.lgc4j.core.checkpoint.CheckpointPart} written atomically (layout:
 * {@link io.lgc4j.core.checkpoint.CheckpointDescriptor}); no Java serialization.
 *
 * <p>Writing: {@link io.lgc4j.core.checkpoint.CheckpointPart.Builder},
 * {@link io.lgc4j.core.checkpoint.CheckpointDirectory#writeRankPart}. Reading:
 * {@link io.lgc4j.core.checkpoint.CheckpointDirectory#latest}, then
 * {@link io.lgc4j.core.checkpoint.CheckpointManifest#checkCompatible} before resuming. A bad checkpoint is a
 * {@link io.lgc4j.core.checkpoint.CheckpointException}, and reading one changes nothing. Which states write which
 * sections ({@link io.lgc4j.core.checkpoint.Persistent}) is the trainer's and the compressors' business.
 */
package io.lgc4j.core.checkpoint;
