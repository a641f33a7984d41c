/**
 * The TCP transport: {@link io.lgc4j.net.TcpCluster} joins one endpoint of a job to the others (a rendezvous through
 * endpoint 0's port, then a full mesh of links authenticated by an HMAC challenge-response on the job token from
 * {@link io.lgc4j.net.JobToken}) and hands out a {@link io.lgc4j.core.comm.Transport} that carries the core's frames
 * exactly as {@link io.lgc4j.core.comm.FrameCodec} seals them, on Netty (native epoll where it loads, NIO
 * otherwise). Links heartbeat when idle; a lost peer, a corrupt frame, a missed deadline or another endpoint's
 * abort surface as {@link io.lgc4j.core.comm.PeerLostException}s naming the endpoint and what was seen.
 * {@link io.lgc4j.net.NetSettings} holds the addresses, the token and the deadlines.
 */
package io.lgc4j.net;
