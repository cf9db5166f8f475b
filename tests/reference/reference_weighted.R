# Reference values for weighted (sampled-query) records: tests/test_weighted_reference.py.
#
#   python tests/reference/make_weighted_data.py   # the CSVs (committed)
#   Rscript tests/reference/reference_weighted.R    # writes tests/reference/r_weighted.json
#
# Each CSV in data_weighted/ has one row per scored query: doc_id, query_id, y,
# weight (= n_d / m_d, constant within a document), M (documents in the population).
#
# Doubles are written as "%.17g" strings (exact round trip); the test parses them.
#
# micro  Σ w y / Σ w with the ultimate-cluster (document) variance:
#          svymean(~y, svydesign(ids = ~doc_id, weights = ~weight, data = q))
#        cross-checked with svyratio(~y, ~one) on the same design (stops if they differ); interval
#          confint(..., df = degf(d)) = estimate ± t(K − 1) SE.
#        With fpc: svydesign(ids = ~doc_id, weights = ~weight, fpc = ~M).
# macro  the mean over documents of r_d = Σ_d w y / Σ_d w (the document's weighted mean):
#          svymean(~r, svydesign(ids = ~1, data = docs)), [fpc = ~M], df = K − 1.
# CR2    clubSandwich on the weighted fit, for the record (ragstat does not report a CR2 df
#        under weights):  fit <- lm(y ~ 1, weights = weight)
#          coef_test(fit, vcov = vcovCR(fit, cluster = doc_id, type = "CR2"),
#                    test = "Satterthwaite")     -> se, df
#        and the same for type = "CR1" (clubSandwich's CR1 multiplies by K/(K − 1)).

suppressPackageStartupMessages({
  library(survey)
  library(clubSandwich)
  library(jsonlite)
})

script_path <- function() {
  arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
  if (length(arg) == 0) stop("run with Rscript tests/reference/reference_weighted.R")
  normalizePath(sub("^--file=", "", arg[1]))
}

here <- dirname(script_path())
data_dir <- file.path(here, "data_weighted")
out_json <- file.path(here, "r_weighted.json")

num <- function(v) {
  v <- as.numeric(v)
  stopifnot(length(v) == 1, is.finite(v))
  structure(sprintf("%.17g", v), class = "json")
}

interval <- function(est, d) {
  se <- SE(est)
  df <- degf(d)
  ci <- confint(est, df = df, level = 0.95)
  list(estimate = num(coef(est)), se = num(se), df = num(df),
       lower = num(ci[1, 1]), upper = num(ci[1, 2]))
}

micro <- function(q, fpc) {
  d <- if (fpc) svydesign(ids = ~doc_id, weights = ~weight, fpc = ~M, data = q)
       else svydesign(ids = ~doc_id, weights = ~weight, data = q)
  est <- svymean(~y, d)
  ratio <- svyratio(~y, ~one, update(d, one = 1))
  stopifnot(abs(coef(ratio) - coef(est)) < 1e-12, abs(SE(ratio) - SE(est)) < 1e-12)
  interval(est, d)
}

macro <- function(q, fpc) {
  docs <- do.call(rbind, lapply(split(q, q$doc_id), function(g) {
    data.frame(doc_id = g$doc_id[1], r = sum(g$weight * g$y) / sum(g$weight), M = g$M[1])
  }))
  d <- if (fpc) svydesign(ids = ~1, fpc = ~M, data = docs) else svydesign(ids = ~1, data = docs)
  interval(svymean(~r, d), d)
}

sandwich <- function(q, type) {
  fit <- lm(y ~ 1, weights = weight, data = q)
  ct <- coef_test(fit, vcov = vcovCR(fit, cluster = q$doc_id, type = type),
                  test = "Satterthwaite")
  list(estimate = num(coef(fit)[1]), se = num(ct$SE[1]), df = num(ct$df_Satt[1]))
}

out <- list()
for (path in sort(list.files(data_dir, pattern = "\\.csv$", full.names = TRUE))) {
  name <- sub("\\.csv$", "", basename(path))
  q <- read.csv(path, colClasses = c(doc_id = "character", query_id = "character"))
  out[[name]] <- list(
    K = length(unique(q$doc_id)),
    M = q$M[1],
    micro = micro(q, FALSE),
    micro_fpc = micro(q, TRUE),
    macro = macro(q, FALSE),
    macro_fpc = macro(q, TRUE),
    clubsandwich_cr2 = sandwich(q, "CR2"),
    clubsandwich_cr1 = sandwich(q, "CR1")
  )
}
out[["_meta"]] <- list(
  R = R.version.string,
  survey = as.character(packageVersion("survey")),
  clubSandwich = as.character(packageVersion("clubSandwich"))
)
writeLines(toJSON(out, auto_unbox = TRUE, pretty = TRUE, digits = NA), out_json)
cat("wrote", out_json, "\n")
