# Reference values from R's survey package for tests/test_designs_reference.py.
#
#   Rscript tests/reference/reference_designs.R
#
# Reads every per-query CSV (columns doc,stratum,y) in tests/reference/data_designs/
# with its population file <name>_population.csv (columns stratum,M) and writes
# tests/reference/r_designs.json with full precision (every double as a %.17g
# literal). Datasets whose name contains "stratified" get the stratified design,
# those containing "two_stage" the two-stage design.
#
# Stratified (strata h, SRS without replacement of K_h of M_h documents), on the
# DOCUMENT table (one row per document: n_d, s_d, r_d = s_d / n_d, stratum, M):
#   macro  svymean(~r, svydesign(ids = ~1, strata = ~stratum, fpc = ~M))
#   micro  svyratio(~s, ~n, same design), and as a cross-check on the per-query
#          table svymean(~y, svydesign(ids = ~doc, strata = ~stratum, fpc = ~M))
#   degf(design) (= #PSU - #strata) is recorded for information only: ragstat uses
#   a Satterthwaite df over strata, computed here by hand from the formula.
#   Also the same estimators with every stratum fully sampled (fpc = K_h): SE 0.
#
# Two-stage (t of T types by SRS, then k_i of M_i documents in type i): the mean
# over types of the type mean rate is the total of z_d = r_d / (M_i T) under
#   svydesign(ids = ~type + doc, fpc = ~T + M_i)
# with options(survey.ultimate.cluster = FALSE) (the default, asserted here) so
# that survey adds the second-stage variance (scaled by t / T). The SE is checked
# by hand against
#   V = (1 - t/T) s2_b / t + (t/T) (1/t^2) sum_i (1 - k_i/M_i) s2_w,i / k_i.
# The first-stage-only (ultimate cluster) SE is recorded too, to show that the
# second-stage term is not negligible in these datasets.
#
# Every survey value is compared with the hand formula; the script stops if any
# disagrees by more than 1e-10 relative.

suppressPackageStartupMessages({
  library(survey)
  library(jsonlite)
})

script_path <- function() {
  arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
  if (length(arg) == 0) stop("run with Rscript tests/reference/reference_designs.R")
  normalizePath(sub("^--file=", "", arg[1]))
}

here <- dirname(script_path())
data_dir <- file.path(here, "data_designs")
out_json <- file.path(here, "r_designs.json")

options(survey.ultimate.cluster = FALSE, survey.lonely.psu = "fail")
stopifnot(identical(getOption("survey.ultimate.cluster"), FALSE))

# jsonlite's digits = NA stops at 15 significant digits; write every double as a
# verbatim %.17g literal instead so that the JSON round-trips the R doubles exactly.
num <- function(v) {
  v <- as.numeric(v)
  stopifnot(length(v) == 1, is.finite(v))
  structure(sprintf("%.17g", v), class = "json")
}

agree <- function(name, what, a, b, tol = 1e-10) {
  a <- unname(as.numeric(a))
  b <- unname(as.numeric(b))
  if (abs(a - b) > tol * max(abs(a), abs(b)) && abs(a - b) > 1e-15) {
    stop(sprintf("%s: %s: survey %.17g differs from the hand formula %.17g", name, what, a, b))
  }
}

read_dataset <- function(path) {
  q <- read.csv(path, colClasses = c(doc = "character", stratum = "character", y = "numeric"))
  pop_path <- sub("\\.csv$", "_population.csv", path)
  pop <- read.csv(pop_path, colClasses = c(stratum = "character", M = "numeric"))
  stopifnot(!anyDuplicated(pop$stratum), all(q$stratum %in% pop$stratum))
  docs <- data.frame(
    doc = sort(unique(q$doc)),
    stringsAsFactors = FALSE
  )
  docs$n <- as.numeric(tapply(q$y, q$doc, length)[docs$doc])
  docs$s <- as.numeric(tapply(q$y, q$doc, sum)[docs$doc])
  docs$r <- docs$s / docs$n
  st <- tapply(q$stratum, q$doc, function(v) {
    stopifnot(length(unique(v)) == 1)
    v[1]
  })
  docs$stratum <- as.character(st[docs$doc])
  list(queries = q, docs = docs, pop = pop, pop_file = basename(pop_path))
}

# Satterthwaite df over strata from the per-stratum variance terms a_h.
satterthwaite <- function(a, K) sum(a)^2 / sum(a^2 / (K - 1))

stratified_reference <- function(d, name) {
  docs <- d$docs
  q <- d$queries
  docs$M <- d$pop$M[match(docs$stratum, d$pop$stratum)]
  q$M <- d$pop$M[match(q$stratum, d$pop$stratum)]
  K_h <- tapply(docs$r, docs$stratum, length)
  M_h <- tapply(docs$M, docs$stratum, function(v) v[1])
  stopifnot(all(K_h >= 2), all(K_h <= M_h))

  des <- svydesign(ids = ~1, strata = ~stratum, fpc = ~M, data = docs)
  macro <- svymean(~r, des)
  micro <- svyratio(~s, ~n, des)
  des_q <- svydesign(ids = ~doc, strata = ~stratum, fpc = ~M, data = q)
  micro_q <- svymean(~y, des_q)

  # by hand (the formulas of ragstat.inference.designs)
  W <- M_h / sum(M_h)
  rbar <- tapply(docs$r, docs$stratum, mean)
  a_macro <- W^2 * (1 - K_h / M_h) * tapply(docs$r, docs$stratum, var) / K_h
  w <- docs$M / as.numeric(K_h[docs$stratum])
  X <- sum(w * docs$n)
  R <- sum(w * docs$s) / X
  z <- (docs$s - R * docs$n) / X
  a_micro <- M_h^2 * (1 - K_h / M_h) * tapply(z, docs$stratum, var) / K_h

  agree(name, "macro estimate", coef(macro), sum(W * rbar))
  agree(name, "macro SE", SE(macro), sqrt(sum(a_macro)))
  agree(name, "micro estimate", coef(micro), R)
  agree(name, "micro SE", SE(micro), sqrt(sum(a_micro)))
  agree(name, "micro estimate (query table)", coef(micro_q), R)
  agree(name, "micro SE (query table)", SE(micro_q), sqrt(sum(a_micro)))

  # every stratum fully sampled: the FPC removes all variance
  full <- docs
  full$M <- as.numeric(K_h[full$stratum])
  des_full <- svydesign(ids = ~1, strata = ~stratum, fpc = ~M, data = full)
  macro_full <- svymean(~r, des_full)
  micro_full <- svyratio(~s, ~n, des_full)

  list(
    design = "stratified",
    file = paste0(name, ".csv"),
    population_file = d$pop_file,
    K = nrow(docs),
    N = nrow(q),
    strata = as.list(setNames(as.integer(K_h), names(K_h))),
    population = as.list(setNames(as.integer(M_h), names(M_h))),
    macro_estimate_survey = num(coef(macro)),
    macro_se_survey = num(SE(macro)),
    micro_estimate_survey = num(coef(micro)),
    micro_se_survey = num(SE(micro)),
    micro_estimate_query_table_survey = num(coef(micro_q)),
    micro_se_query_table_survey = num(SE(micro_q)),
    degf_survey = num(degf(des)),
    degf_query_table_survey = num(degf(des_q)),
    macro_df_satterthwaite_by_hand = num(satterthwaite(a_macro, K_h)),
    micro_df_satterthwaite_by_hand = num(satterthwaite(a_micro, K_h)),
    full_macro_estimate_survey = num(coef(macro_full)),
    full_macro_se_survey = num(SE(macro_full)),
    full_micro_estimate_survey = num(coef(micro_full)),
    full_micro_se_survey = num(SE(micro_full))
  )
}

two_stage_reference <- function(d, name) {
  docs <- d$docs
  docs$type <- docs$stratum
  docs$M_i <- d$pop$M[match(docs$type, d$pop$stratum)]
  T <- nrow(d$pop)
  docs$T <- T
  docs$z <- docs$r / (docs$M_i * T)

  des <- svydesign(ids = ~ type + doc, fpc = ~ T + M_i, data = docs)
  tot <- svytotal(~z, des)
  # first stage only (ultimate cluster), for information: same design and weights,
  # variance from the first stage alone
  options(survey.ultimate.cluster = TRUE)
  tot1 <- svytotal(~z, des)
  options(survey.ultimate.cluster = FALSE)

  # by hand
  k_i <- tapply(docs$r, docs$type, length)
  M_i <- tapply(docs$M_i, docs$type, function(v) v[1])
  t <- length(k_i)
  stopifnot(t >= 2, all(k_i >= 2), all(k_i <= M_i))
  rbar <- tapply(docs$r, docs$type, mean)
  between <- (1 - t / T) * var(as.numeric(rbar)) / t
  within <- (t / T) * sum((1 - k_i / M_i) * tapply(docs$r, docs$type, var) / k_i) / t^2

  agree(name, "two-stage estimate", coef(tot), mean(rbar))
  agree(name, "two-stage SE", SE(tot), sqrt(between + within))
  agree(name, "first-stage-only estimate", coef(tot1), mean(rbar))
  agree(name, "first-stage-only SE", SE(tot1), sqrt(between))
  stopifnot(within > 0)

  list(
    design = "two-stage",
    file = paste0(name, ".csv"),
    population_file = d$pop_file,
    K = nrow(docs),
    N = nrow(d$queries),
    t = as.integer(t),
    T = as.integer(T),
    types = as.list(setNames(as.integer(k_i), names(k_i))),
    population = as.list(setNames(as.integer(d$pop$M), d$pop$stratum)),
    estimate_survey = num(coef(tot)),
    se_survey = num(SE(tot)),
    se_first_stage_only_survey = num(SE(tot1)),
    var_between_by_hand = num(between),
    var_within_by_hand = num(within),
    degf_survey = num(degf(des))
  )
}

files <- sort(list.files(data_dir, pattern = "\\.csv$", full.names = TRUE))
files <- files[!grepl("_population\\.csv$", files)]
if (length(files) == 0) stop("no CSV in ", data_dir, "; run make_design_datasets.py first")
datasets <- list()
for (f in files) {
  nm <- sub("\\.csv$", "", basename(f))
  d <- read_dataset(f)
  if (grepl("stratified", nm)) {
    datasets[[nm]] <- stratified_reference(d, nm)
  } else if (grepl("two_stage", nm)) {
    datasets[[nm]] <- two_stage_reference(d, nm)
  } else {
    stop("dataset name must contain 'stratified' or 'two_stage': ", nm)
  }
}

out <- list(
  generated_by = "tests/reference/reference_designs.R",
  versions = list(
    R = R.version.string,
    survey = as.character(packageVersion("survey")),
    jsonlite = as.character(packageVersion("jsonlite"))
  ),
  options = list(survey.ultimate.cluster = getOption("survey.ultimate.cluster")),
  notes = paste(
    "Stratified: svymean(~r) and svyratio(~s, ~n) on the document table with",
    "svydesign(ids = ~1, strata = ~stratum, fpc = ~M); micro also as svymean(~y) on",
    "the query table with ids = ~doc. degf_* is survey's #PSU - #strata, for",
    "information only; *_df_satterthwaite_by_hand is the Satterthwaite df over strata",
    "computed in R from the formula. full_* use fpc = K_h (every stratum fully sampled).",
    "Two-stage: svytotal(~z), z = r / (M_i T), svydesign(ids = ~type + doc,",
    "fpc = ~T + M_i), survey.ultimate.cluster = FALSE; every survey value was checked",
    "against the hand formulas to 1e-10."
  ),
  datasets = datasets
)
write_json(out, out_json, digits = NA, auto_unbox = TRUE, pretty = TRUE, json_verbatim = TRUE)
cat("wrote", out_json, "with", length(datasets), "datasets\n")
