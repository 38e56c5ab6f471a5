package io.lagassign;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which members of this JVM led the rebalance that gave them their current generation: the
 * {@link LagAssignor} records it (its {@code assign()} ran, then {@code onAssignment()} told it its
 * member id and generation), and the {@link RebalanceAdvisor} asks it, so that only the member that
 * led the last rebalance of a group ever forces the next one.
 */
final class LeaderRecord {
    /** The generation a member led and the digest of the assignment it made. */
    private record Led(int generation, String digest) {
    }

    /** Member id to what it led. A member that stops leading is removed. */
    private static final Map<String, Led> LED = new ConcurrentHashMap<>();

    private LeaderRecord() {
    }

    /** {@code memberId} led {@code generation}, assigning what {@code digest} ({@link AssignmentDigest}) names. */
    static void led(String memberId, int generation, String digest) {
        LED.put(memberId, new Led(generation, digest));
    }

    /** The digest of the assignment {@code memberId} made for {@code generation}, or null. */
    static String digest(String memberId, int generation) {
        Led led = LED.get(memberId);
        return led != null && led.generation() == generation ? led.digest() : null;
    }

    static void followed(String memberId) {
        LED.remove(memberId);
    }

    /** True when {@code memberId} led the rebalance of {@code generation}. */
    static boolean isLeader(String memberId, int generation) {
        Led led = LED.get(memberId);
        return led != null && led.generation() == generation;
    }
}
