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
    /** Member id to the generation it led. A member that stops leading is removed. */
    private static final Map<String, Integer> LED = new ConcurrentHashMap<>();

    private LeaderRecord() {
    }

    static void led(String memberId, int generation) {
        LED.put(memberId, generation);
    }

    static void followed(String memberId) {
        LED.remove(memberId);
    }

    /** True when {@code memberId} led the rebalance of {@code generation}. */
    static boolean isLeader(String memberId, int generation) {
        Integer led = LED.get(memberId);
        return led != null && led == generation;
    }
}
