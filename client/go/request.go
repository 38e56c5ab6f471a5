package lagassign

// requestBody is the POST /assign body (docs/http-api.md) in the compact form:
// each distinct subscription once, each member naming its own by index, the
// answer asked for in the packed form; an eager or a cooperative rebalance. A member's owned
// partitions are those the leader's metadata knows.
func (v *groupView) requestBody(strategy, resetPolicy string) []byte {
	w := &jsonWriter{out: make([]byte, 0, 4096)}
	w.raw(`{"group_id":`)
	w.string(v.groupID)
	w.raw(`,"subscriptions":[`)
	for i, topics := range v.subscriptions {
		if i > 0 {
			w.raw(",")
		}
		w.raw("[")
		for j, topic := range topics {
			if j > 0 {
				w.raw(",")
			}
			w.string(topic)
		}
		w.raw("]")
	}
	w.raw(`],"members":[`)
	for i, m := range v.asked() {
		if i > 0 {
			w.raw(",")
		}
		w.raw(`{"member_id":`)
		w.string(m.id)
		w.raw(`,"group_instance_id":`)
		w.optional(m.instanceID)
		w.raw(`,"subscription":`)
		w.int(int64(m.subscription))
		w.raw(`,"owned":{`)
		v.writeOwned(w, m.userData.owned)
		w.raw(`},"generation":`)
		if m.userData.generation == nil {
			w.raw("null")
		} else {
			w.int(int64(*m.userData.generation))
		}
		w.raw(`,"rack":`)
		w.optional(m.userData.rack)
		w.raw("}")
	}
	w.raw(`],"partitions":{`)
	for i, topic := range sortedKeys(v.partitions) {
		if i > 0 {
			w.raw(",")
		}
		w.string(topic)
		w.raw(":")
		w.int(int64(v.partitions[topic]))
	}
	if v.cooperative {
		w.raw(`},"protocol":"cooperative","answer_form":"packed"`)
	} else {
		w.raw(`},"protocol":"eager","answer_form":"packed"`)
	}
	if strategy != "" {
		w.raw(`,"strategy":`)
		w.string(strategy)
	}
	if resetPolicy != "" {
		w.raw(`,"reset_policy":`)
		w.string(resetPolicy)
	}
	w.raw("}")
	return w.out
}

// writeOwned writes the owned partitions the view knows, topics in name order.
func (v *groupView) writeOwned(w *jsonWriter, owned []topicPartitions) {
	first := true
	for _, tp := range owned {
		count, known := v.partitions[tp.topic]
		if !known {
			continue
		}
		started := false
		for _, p := range tp.partitions {
			if p >= count {
				continue
			}
			if !started {
				if !first {
					w.raw(",")
				}
				w.string(tp.topic)
				w.raw(":[")
				started, first = true, false
			} else {
				w.raw(",")
			}
			w.int(int64(p))
		}
		if started {
			w.raw("]")
		}
	}
}
