"""The columns of every long-format result table (:func:`mlviz.evaluation.cross_validate`, the reference rows)."""

RESULT_COLUMNS = ["method", "fold", "measure", "value", "fit_seconds", "predict_seconds",
                  "decision_rule", "scaling", "tuned_params", "tune_seconds"]
