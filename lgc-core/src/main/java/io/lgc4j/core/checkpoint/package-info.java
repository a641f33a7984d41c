/**
 * Checkpoints: the byte format of a run's saved state and the files it lives in. A checkpoint is a directory
 * {@code <runDir>/checkpoints/step-000124/} of part files — one per rank ({@code rank-<r>.lgcc}) and per service
 * ({@code server-<s>.lgcc}), then {@code manifest.lgcc}, written last — each a {@link
 * io.lgc4j.core.checkpoint.CheckpointPart}: magic {@code LGCK}, a format version, named sections with lengths and a
 * CRC32C each, a trailer CRC ({@link io.lgc4j.core.checkpoint.CheckpointDescriptor} has the layout). No Java
 * serialization; every file is written atomically (temporary file, force, rename, directory force).
 *
 * <p>Writing: {@link io.lgc4j.core.checkpoint.CheckpointPart.Builder} and {@link
 * io.lgc4j.core.checkpoint.SectionWriter}, {@link io.lgc4j.core.checkpoint.CheckpointDirectory#writeRankPart},
 * {@link io.lgc4j.core.checkpoint.CheckpointDirectory#writeManifest}. Reading: {@link
 * io.lgc4j.core.checkpoint.CheckpointDirectory#latest}, {@link io.lgc4j.core.checkpoint.Checkpoint#rankPart}, {@link
 * io.lgc4j.core.checkpoint.SectionReader}; before resuming, {@link
 * io.lgc4j.core.checkpoint.CheckpointManifest#checkCompatible} compares K, S, the model and the config. Every bad
 * checkpoint is a {@link io.lgc4j.core.checkpoint.CheckpointException} that names the file and says what was
 * expected and what was found, and reading one changes nothing.
 *
 * <p>This package is the container and the {@link io.lgc4j.core.checkpoint.Persistent} contract; which states write
 * which sections (replicas, updaters, compressor memory, autoencoders, the drift guard) is the trainer's and the
 * compressors' (see {@code DistributedTrainer.Builder#checkpoints} and {@code docs/architecture.md}).
 */
package io.lgc4j.core.checkpoint;
