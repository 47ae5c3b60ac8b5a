package io.leaf.server.config;

import java.time.Duration;

/**
 * The bounds of one client's HTTP/2 connection to the gRPC API: its concurrent calls, and how old
 * it may grow before the server asks the client to reconnect.
 *
 * @param maxCalls concurrent calls per HTTP/2 connection
 * @param maxAge a connection is sent GOAWAY after about this long; zero: never
 * @param maxAgeGrace calls in progress on such a connection get this long to finish
 */
public record ConnectionBounds(int maxCalls, Duration maxAge, Duration maxAgeGrace) {}
