"""Where the paper shows what each of our figures shows (QoPS §5, Figs. 4-58); the paper's
figures carry no printed values, so its findings are compared by direction.
"""

from __future__ import annotations

#: The paper's figure numbers for each of our figures: (kind, method, s, fraction) ->
#: "CTC figures; SDSC figures" (QoPS §5; the paper shows expansion on CTC only).
PAPER_FIGURES = {
    ("admittance", "duplicate", 0.2, 1.0): "Figs. 4, 6a (CTC); 7, 9a (SDSC)",
    ("admittance", "duplicate", 0.5, 1.0): "Figs. 5, 6b (CTC); 8, 9b (SDSC)",
    ("admittance", "expand", 0.2, 1.0): "Figs. 10, 12a (CTC)",
    ("admittance", "expand", 0.5, 1.0): "Figs. 11, 12b (CTC)",
    ("admittance", "duplicate", 0.2, 0.8): "Figs. 13, 37a (CTC); 17, 39a (SDSC)",
    ("admittance", "duplicate", 0.5, 0.8): "Figs. 14, 38a (CTC); 18, 40a (SDSC)",
    ("admittance", "duplicate", 0.2, 0.2): "Figs. 15, 37b (CTC); 19, 39b (SDSC)",
    ("admittance", "duplicate", 0.5, 0.2): "Figs. 16, 38b (CTC); 20, 40b (SDSC)",
    ("admittance", "expand", 0.2, 0.8): "Figs. 21, 41a (CTC)",
    ("admittance", "expand", 0.5, 0.8): "Figs. 22, 42a (CTC)",
    ("admittance", "expand", 0.2, 0.2): "Figs. 23, 41b (CTC)",
    ("admittance", "expand", 0.5, 0.2): "Figs. 24, 42b (CTC)",
    ("nondeadline", "duplicate", 0.2, 0.2): "Figs. 25, 43 (CTC); 29, 47 (SDSC)",
    ("nondeadline", "duplicate", 0.5, 0.2): "Figs. 26, 44 (CTC); 30, 48 (SDSC)",
    ("nondeadline", "duplicate", 0.2, 0.8): "Figs. 27, 45 (CTC); 31, 49 (SDSC)",
    ("nondeadline", "duplicate", 0.5, 0.8): "Figs. 28, 46 (CTC); 32, 50 (SDSC)",
    ("nondeadline", "expand", 0.2, 0.2): "Figs. 33, 51 (CTC)",
    ("nondeadline", "expand", 0.5, 0.2): "Figs. 34, 52 (CTC)",
    ("nondeadline", "expand", 0.2, 0.8): "Figs. 35, 53 (CTC)",
    ("nondeadline", "expand", 0.5, 0.8): "Figs. 36, 54 (CTC)",
    ("relaxation", "duplicate", 0.2, 0.2): "Fig. 55 (CTC)",
    ("relaxation", "duplicate", 0.5, 0.2): "Fig. 56 (CTC)",
    ("relaxation", "duplicate", 0.2, 0.8): "Fig. 57 (CTC)",
    ("relaxation", "duplicate", 0.5, 0.8): "Fig. 58 (CTC)",
}
