# Reference values from R packages for tests/test_reference_r.py.
#
#   Rscript tests/reference/reference_r.R
#
# Reads every CSV (columns doc,y) in tests/reference/data/ and, when it exists,
# ../shared/data/fixtures/cluster12.csv beside the repository (recorded as
# "cluster12"), and writes tests/reference/r_reference.json with full precision
# (every double as a %.17g literal).
#
# Per dataset, for the micro mean R = mean(y) of lm(y ~ 1) clustered by doc:
#   clubSandwich  vcovCR(type = "CR1") SE, vcovCR(type = "CR2") SE,
#                 coef_test(vcov = "CR2", test = "Satterthwaite") df (Bell-McCaffrey)
#   estimatr      lm_robust(se_type = "CR2") SE and df
#   survey        svymean(~y, svydesign(ids = ~doc)) SE (= CR1), and with
#                 fpc = M = 4 K population documents (micro with FPC)
# and for the macro mean of the per-document rates r_d: mean, sd / sqrt(K),
# survey svymean on the document-level table without and with fpc = M.
#
# clubSandwich's "CR1" multiplies the CR0 meat by K / (K - 1) only ("CR1S" is
# Stata's K (N - 1) / ((K - 1) (N - p)), "CR1p" is K / (K - p)); the script
# checks this against the closed form sqrt(K / (K - 1) sum(u_d^2)) / N and
# against survey, and stops if either disagrees.

suppressPackageStartupMessages({
  library(clubSandwich)
  library(estimatr)
  library(survey)
  library(jsonlite)
})

script_path <- function() {
  arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
  if (length(arg) == 0) stop("run with Rscript tests/reference/reference_r.R")
  normalizePath(sub("^--file=", "", arg[1]))
}

here <- dirname(script_path())
data_dir <- file.path(here, "data")
repo_root <- normalizePath(file.path(here, "..", ".."))
shared_csv <- file.path(dirname(repo_root), "shared", "data", "fixtures", "cluster12.csv")
out_json <- file.path(here, "r_reference.json")

cr1_type <- "CR1"

# jsonlite's digits = NA stops at 15 significant digits; write every double as a
# verbatim %.17g literal instead so that the JSON round-trips the R doubles exactly.
num <- function(v) {
  v <- as.numeric(v)
  stopifnot(length(v) == 1, is.finite(v))
  structure(sprintf("%.17g", v), class = "json")
}

reference_for <- function(path, name, source) {
  d <- read.csv(path, colClasses = c(doc = "character", y = "numeric"))
  d$doc <- factor(d$doc)
  K <- nlevels(d$doc)
  N <- nrow(d)
  M <- 4 * K

  fit <- lm(y ~ 1, data = d)
  R <- unname(coef(fit)[1])

  # clubSandwich
  v_cr1 <- vcovCR(fit, cluster = d$doc, type = cr1_type)
  v_cr2 <- vcovCR(fit, cluster = d$doc, type = "CR2")
  cr1_cs <- sqrt(as.matrix(v_cr1)[1, 1])
  cr2_cs <- sqrt(as.matrix(v_cr2)[1, 1])
  ct <- as.data.frame(coef_test(fit, vcov = "CR2", cluster = d$doc, test = "Satterthwaite"))
  df_col <- grep("^df", names(ct), value = TRUE)[1]
  df_cs <- ct[[df_col]][1]
  se_ct <- ct$SE[1]

  # closed form CR1 with the K / (K - 1) factor only
  u <- tapply(d$y - R, d$doc, sum)
  cr1_closed <- sqrt(K / (K - 1) * sum(u^2)) / N
  if (abs(cr1_cs / cr1_closed - 1) > 1e-10) {
    stop(sprintf("%s: clubSandwich %s = %.17g differs from K/(K-1) closed form %.17g",
                 name, cr1_type, cr1_cs, cr1_closed))
  }

  # estimatr
  lr <- lm_robust(y ~ 1, data = d, clusters = doc, se_type = "CR2")
  cr2_er <- unname(lr$std.error[1])
  df_er <- unname(lr$df[1])

  # survey, micro (ratio of totals = mean of y with equal weights)
  dd <- d
  dd$M <- M
  des <- suppressWarnings(svydesign(ids = ~doc, data = dd))
  sm <- svymean(~y, des)
  des_fpc <- svydesign(ids = ~doc, fpc = ~M, data = dd)
  sm_fpc <- svymean(~y, des_fpc)
  if (abs(unname(coef(sm_fpc)) / R - 1) > 1e-12 && abs(unname(coef(sm_fpc)) - R) > 1e-14) {
    stop(sprintf("%s: survey FPC mean %.17g differs from R %.17g", name, coef(sm_fpc), R))
  }
  if (abs(unname(SE(sm)) / cr1_cs - 1) > 1e-10) {
    stop(sprintf("%s: survey SE %.17g differs from clubSandwich %s %.17g",
                 name, SE(sm), cr1_type, cr1_cs))
  }

  # macro: per-document rates
  r <- tapply(d$y, d$doc, mean)
  docs <- data.frame(doc = names(r), r = as.numeric(r), M = M)
  des_doc <- suppressWarnings(svydesign(ids = ~doc, data = docs))
  des_doc_fpc <- svydesign(ids = ~doc, fpc = ~M, data = docs)
  mm <- svymean(~r, des_doc)
  mm_fpc <- svymean(~r, des_doc_fpc)

  list(
    name = name,
    file = basename(path),
    source = source,
    K = as.integer(K),
    N = as.integer(N),
    M = as.integer(M),
    R = num(R),
    cr1_type = cr1_type,
    se_cr1_clubSandwich = num(cr1_cs),
    se_cr2_clubSandwich = num(cr2_cs),
    se_cr2_coef_test = num(se_ct),
    df_bm_clubSandwich = num(df_cs),
    df_column_clubSandwich = df_col,
    se_cr2_estimatr = num(cr2_er),
    df_cr2_estimatr = num(df_er),
    se_cr1_survey = num(unname(SE(sm))),
    mean_survey = num(unname(coef(sm))),
    se_micro_fpc_survey = num(unname(SE(sm_fpc))),
    mean_micro_fpc_survey = num(unname(coef(sm_fpc))),
    macro_mean = num(mean(r)),
    macro_se = num(sd(r) / sqrt(K)),
    macro_mean_survey = num(unname(coef(mm))),
    macro_se_survey = num(unname(SE(mm))),
    macro_se_fpc_survey = num(unname(SE(mm_fpc)))
  )
}

files <- sort(list.files(data_dir, pattern = "\\.csv$", full.names = TRUE))
if (length(files) == 0) stop("no CSV in ", data_dir, "; run make_datasets.py first")
datasets <- list()
for (f in files) {
  nm <- sub("\\.csv$", "", basename(f))
  datasets[[nm]] <- reference_for(f, nm, "tests/reference/data")
}
if (file.exists(shared_csv)) {
  datasets[["cluster12"]] <- reference_for(shared_csv, "cluster12", "shared/data/fixtures")
} else {
  message("cluster12.csv not found at ", shared_csv, "; skipped")
}

out <- list(
  generated_by = "tests/reference/reference_r.R",
  versions = list(
    R = R.version.string,
    clubSandwich = as.character(packageVersion("clubSandwich")),
    estimatr = as.character(packageVersion("estimatr")),
    survey = as.character(packageVersion("survey")),
    jsonlite = as.character(packageVersion("jsonlite"))
  ),
  notes = paste(
    "clubSandwich vcovCR type recorded in cr1_type scales the CR0 meat by K/(K-1) only",
    "(checked against sqrt(K/(K-1) sum u_d^2)/N and survey); M = 4K population documents",
    "for the finite-population (fpc) designs; df_bm_clubSandwich is coef_test(vcov = 'CR2',",
    "test = 'Satterthwaite')."
  ),
  datasets = datasets
)
write_json(out, out_json, digits = NA, auto_unbox = TRUE, pretty = TRUE, json_verbatim = TRUE)
cat("wrote", out_json, "with", length(datasets), "datasets\n")
