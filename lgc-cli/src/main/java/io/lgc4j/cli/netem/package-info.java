/**
 * Network emulation on one Linux host for measuring training over slow links: a fabric of network namespaces joined
 * through a bridge, every link shaped with {@code tc tbf} ({@link io.lgc4j.cli.netem.NetnsFabric}), a raw
 * throughput probe between two of them ({@link io.lgc4j.cli.netem.LinkProbe}), and an equal, fixed CPU share
 * per process ({@link io.lgc4j.cli.netem.CpuShares}). Everything here needs root and removes what it made.
 */
package io.lgc4j.cli.netem;
