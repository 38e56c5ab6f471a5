"""Live rates and time lag: a bounded window of offsets per partition, fed by every refresh.

- :mod:`lagassign.rates.figures`: the pure figures over a window's values
  (produce and consume rate, time lag);
- :mod:`lagassign.rates.window`: the window itself, a refresh listener of the lag view;
- :mod:`lagassign.rates.load`: the ``load`` lag model of ``POST /assign``
  (lag + produce rate x horizon).
"""
