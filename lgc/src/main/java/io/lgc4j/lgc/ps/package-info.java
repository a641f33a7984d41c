/**
 * LGC-PS: the parameter-server side of learned gradient compression ({@link io.lgc4j.lgc.ps.LgcPsTopology}) — a
 * random leader's or each rank's own top-k support, the server training the one-encoder, K-decoder autoencoder
 * during TOP_K, and in COMPRESSED the leader's latent plus every rank's innovation decoded and averaged at the
 * server.
 */
package io.lgc4j.lgc.ps;
