/**
 * Elastic launch on several hosts: every host runs {@code lgc launch --nnodes MIN:MAX --rdzv HOST:PORT}, one of them
 * also the {@link io.lgc4j.cli.hosts.Store} that forms each round of the job from the hosts present, and every
 * launcher an {@link io.lgc4j.cli.hosts.Agent} that runs its host's part of a round. They speak {@link
 * io.lgc4j.cli.hosts.Message}s over a {@link io.lgc4j.cli.hosts.ControlLink} authenticated with the job token.
 * The design: {@code docs/design/elastic-hosts.md}.
 */
package io.lgc4j.cli.hosts;
