package io.lagassign;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The rebalances this consumer led, counted by outcome: {@code sidecar} (a lag-aware answer),
 * {@code lag_blind} and {@code lag_partial} (an answer used without full lag), or a fallback
 * reason ({@code timeout}, {@code unknown_host}, ...). Every outcome is present from the start,
 * at 0, so a dashboard sees the full set before the first rebalance.
 */
final class DecisionCounters {
    /** Every outcome label, in a stable order: the answers first, then the fallback reasons. */
    static final List<String> OUTCOMES;

    static {
        List<String> outcomes = new ArrayList<>();
        outcomes.add(Decision.LAG_AWARE);
        for (LagBlindness blindness : LagBlindness.values()) {
            outcomes.add(blindness.label());
        }
        for (FallbackReason reason : FallbackReason.values()) {
            outcomes.add(reason.label());
        }
        OUTCOMES = Collections.unmodifiableList(outcomes);
    }

    private final Map<String, AtomicLong> counts = new LinkedHashMap<>();
    private volatile Decision last;

    DecisionCounters() {
        OUTCOMES.forEach(outcome -> counts.put(outcome, new AtomicLong()));
    }

    void count(Decision decision) {
        counts.get(decision.outcome()).incrementAndGet();
        last = decision;
    }

    long of(String outcome) {
        AtomicLong count = counts.get(outcome);
        if (count == null) {
            throw new IllegalArgumentException("no outcome '" + outcome + "'; one of " + OUTCOMES);
        }
        return count.get();
    }

    /** Rebalances assigned by the sidecar's answer, lag-blind ones included. */
    long answers() {
        long total = of(Decision.LAG_AWARE);
        for (LagBlindness blindness : LagBlindness.values()) {
            total += of(blindness.label());
        }
        return total;
    }

    /** Rebalances assigned by Kafka's RangeAssignor. */
    long fallbacks() {
        long total = 0;
        for (FallbackReason reason : FallbackReason.values()) {
            total += of(reason.label());
        }
        return total;
    }

    /** The counts of the given labels that are not 0. */
    Map<String, Long> nonZero(List<String> labels) {
        Map<String, Long> out = new TreeMap<>();
        labels.forEach(label -> {
            long count = of(label);
            if (count > 0) {
                out.put(label, count);
            }
        });
        return out;
    }

    Decision last() {
        return last;
    }
}
