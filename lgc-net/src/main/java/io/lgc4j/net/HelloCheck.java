package io.lgc4j.net;

/**
 * What one endpoint's HELLO must say for the other to go on: the protocol, the job and attempt, an endpoint id that
 * fits the job and the dialing rule, and the same plan. The acceptor's side refuses a dialer with a reason it sends
 * back; the dialer's side names what is wrong with the endpoint it dialed, fatal when retrying cannot help. Whether a
 * peer is already connected or registered is the cluster's state, not checked here.
 */
final class HelloCheck {
    private HelloCheck() {
    }

    /** Acceptor: null when the dialer's HELLO is acceptable so far, else the reason to refuse it. */
    static String refusal(NetSettings settings, Handshake.Hello hello) {
        int self = settings.identity().endpoint();
        int n = settings.identity().endpoints();
        if (hello.magic() != Handshake.MAGIC) {
            return String.format("not an LGC4J handshake (magic 0x%08X)", hello.magic());
        }
        if (hello.version() != Handshake.VERSION) {
            return "protocol version " + hello.version() + " (this endpoint speaks " + Handshake.VERSION + ")";
        }
        if (hello.job() != settings.identity().job()) {
            return "wrong job id " + Integer.toUnsignedString(hello.job()) + " (this job is "
                    + Integer.toUnsignedString(settings.identity().job()) + ")";
        }
        if (hello.attempt() != settings.identity().attempt()) {
            return "wrong attempt " + Integer.toUnsignedString(hello.attempt()) + " (this is attempt "
                    + settings.identity().attempt() + ")";
        }
        int peer = hello.endpoint();
        if (peer >= n) {
            return "endpoint " + peer + " is out of range (this job has endpoints 0.." + (n - 1) + ")";
        }
        if (peer == self) {
            return "endpoint " + peer + " is this endpoint's own id";
        }
        if (hello.plan() != settings.plan().hash()) {
            return planMismatch(settings, settings.name(peer), hello.plan());
        }
        if (self > 0 && peer < self) {
            return "endpoint " + peer + " should not dial endpoint " + self + " (each endpoint dials the endpoints"
                    + " 1.." + "below it, and endpoint 0)";
        }
        return null;
    }

    /** Dialer: what is wrong with the HELLO of {@code who}, the endpoint {@code dialed}, or null. */
    static HandshakeHandler.Complaint complaint(NetSettings settings, Handshake.Hello hello, int dialed, String who) {
        if (hello.magic() != Handshake.MAGIC) {
            return new HandshakeHandler.Complaint(who + " is not an LGC4J endpoint (handshake magic "
                    + String.format("0x%08X", hello.magic()) + ")", false);
        }
        if (hello.version() != Handshake.VERSION) {
            return new HandshakeHandler.Complaint(who + " speaks protocol version " + hello.version()
                    + ", this endpoint " + Handshake.VERSION, true);
        }
        if (hello.job() != settings.identity().job() || hello.attempt() != settings.identity().attempt()) {
            return new HandshakeHandler.Complaint(who + " belongs to job " + Integer.toUnsignedString(hello.job())
                    + " attempt " + Integer.toUnsignedString(hello.attempt()) + ", this endpoint to job "
                    + Integer.toUnsignedString(settings.identity().job()) + " attempt " + settings.identity().attempt(),
                    true);
        }
        if (hello.endpoint() != dialed) {
            return new HandshakeHandler.Complaint("dialed " + who + " but endpoint " + hello.endpoint()
                    + " answered", false);
        }
        if (hello.plan() != settings.plan().hash()) {
            return new HandshakeHandler.Complaint(planMismatch(settings, who, hello.plan()), true);
        }
        return null;
    }

    /** Why a peer whose HELLO carries {@code plan} cannot join this endpoint's run. */
    private static String planMismatch(NetSettings settings, String who, long plan) {
        return who + " runs another plan (" + String.format("0x%016x", plan) + ") than " + settings.name(
                settings.identity().endpoint()) + ", whose plan is " + settings.plan().meaning() + " (hash "
                + String.format("0x%016x", settings.plan().hash()) + "): every process must run the same model,"
                + " topology.servers and topology.fusionBufferBytes";
    }
}
