# Reference values from clubSandwich for tests/test_two_sample.py.
#
#   Rscript tests/reference/reference_two_sample.R
#
# Generates two-arm datasets (units nested in arms, unequal rows per unit) with a
# fixed seed and writes them, with clubSandwich's
#   coef_test(lm(y ~ arm), vcov = "CR2", cluster = unit, test = "Satterthwaite")
# for the arm coefficient (arm a factor with levels c("B", "A"), so the coefficient is
# mean(A) - mean(B)), to tests/reference/two_sample_reference.json. Every double is
# written as a %.17g literal so the JSON round-trips R's doubles exactly.

suppressPackageStartupMessages({
  library(clubSandwich)
  library(jsonlite)
})

script_path <- function() {
  arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
  if (length(arg) == 0) stop("run with Rscript tests/reference/reference_two_sample.R")
  normalizePath(sub("^--file=", "", arg[1]))
}
out_json <- file.path(dirname(script_path()), "two_sample_reference.json")

num <- function(v) {
  v <- as.numeric(v)
  stopifnot(length(v) == 1, is.finite(v))
  structure(sprintf("%.17g", v), class = "json")
}
nums <- function(v) structure(paste0("[", paste(sprintf("%.17g", as.numeric(v)), collapse = ","), "]"), class = "json")

make <- function(K_a, K_b, mean_rows, binary, icc = 0.2, delta = 0.05) {
  arm <- c(rep("A", K_a), rep("B", K_b))
  rows <- 1 + rpois(K_a + K_b, mean_rows - 1)
  unit_id <- sprintf("u%03d", seq_len(K_a + K_b))
  base <- ifelse(arm == "A", 0.6 + delta, 0.6)
  y <- c(); unit <- c(); a <- c()
  for (k in seq_along(rows)) {
    if (binary) {
      shape <- (1 - icc) / icc
      p <- rbeta(1, base[k] * shape, (1 - base[k]) * shape)
      yk <- rbinom(rows[k], 1, p)
    } else {
      yk <- base[k] + rnorm(1, 0, sqrt(icc)) + rnorm(rows[k], 0, sqrt(1 - icc))
    }
    y <- c(y, yk); unit <- c(unit, rep(unit_id[k], rows[k])); a <- c(a, rep(arm[k], rows[k]))
  }
  data.frame(unit = unit, arm = a, y = as.numeric(y), stringsAsFactors = FALSE)
}

set.seed(20240616)
specs <- list(
  binary_balanced = list(K_a = 12, K_b = 12, mean_rows = 4, binary = TRUE),
  binary_unbalanced = list(K_a = 5, K_b = 17, mean_rows = 6, binary = TRUE),
  continuous = list(K_a = 8, K_b = 11, mean_rows = 3, binary = FALSE),
  continuous_big_unit = list(K_a = 6, K_b = 7, mean_rows = 2, binary = FALSE)
)
datasets <- list()
for (name in names(specs)) {
  s <- specs[[name]]
  d <- make(s$K_a, s$K_b, s$mean_rows, s$binary)
  if (name == "continuous_big_unit") {  # one unit holds most of arm B's rows
    extra <- data.frame(unit = "u013", arm = "B", y = rnorm(40, 0.6, 1), stringsAsFactors = FALSE)
    d <- rbind(d, extra)
  }
  d$arm_f <- factor(d$arm, levels = c("B", "A"))
  fit <- lm(y ~ arm_f, data = d)
  ct <- coef_test(fit, vcov = "CR2", cluster = d$unit, test = "Satterthwaite")
  row <- ct[2, ]
  datasets[[name]] <- list(
    unit = d$unit, arm = d$arm, y = nums(d$y),
    beta = num(row$beta), se = num(row$SE), df = num(row$df_Satt),
    t = num(row$tstat), p = num(row$p_Satt)
  )
}

out <- list(
  generated_by = "tests/reference/reference_two_sample.R",
  versions = list(R = R.version.string, clubSandwich = as.character(packageVersion("clubSandwich"))),
  call = 'coef_test(lm(y ~ arm), vcov = "CR2", cluster = unit, test = "Satterthwaite"), arm levels c("B", "A")',
  datasets = datasets
)
writeLines(toJSON(out, auto_unbox = TRUE, pretty = TRUE, digits = NA, json_verbatim = TRUE), out_json)
cat("wrote", out_json, "\n")
