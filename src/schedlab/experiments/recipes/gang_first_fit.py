"""The gang reproduction under first-fit backfilling (every waiting job that fits is
placed), the reading the recipe used before the reservation for the queue's head
(docs/background/reproductions/gang.md, "Which backfilling rule")."""

from schedlab.experiments.recipes.gang import make_recipe

RECIPE = make_recipe("gang-first-fit", "; gang backfill=first-fit", backfill="first-fit")
