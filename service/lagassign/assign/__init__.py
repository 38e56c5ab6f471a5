"""One rebalance answered: the request, where its lags come from, the answer, the answer log."""
