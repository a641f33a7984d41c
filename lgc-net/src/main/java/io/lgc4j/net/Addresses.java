package io.lgc4j.net;

import java.net.InetSocketAddress;

/** How messages show an address: {@code host:port}, the host as given (no reverse lookup, no "/<unresolved>"). */
final class Addresses {
    private Addresses() {
    }

    static String show(InetSocketAddress address) {
        String host = address.getHostString();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
    }
}
