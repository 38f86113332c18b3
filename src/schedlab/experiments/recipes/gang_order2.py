"""The gang reproduction on w0 … w8 with service times of hyper-Erlang order 2
(w0-order2 … w8-order2, labelled w0 … w8; docs/reference/models.md, "The order")."""

from schedlab.experiments.recipes.gang import make_recipe

RECIPE = make_recipe("gang-order2", "; service times of order 2", order=2)
