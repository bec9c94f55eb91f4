//! The still-picture flags shared by `capture`, `session capture` and `session inspect`:
//! secret masking and crop, mapped onto [`Options`] (which a config file and a scenario can
//! also set). Facts: shared/spec/console2svg-contract.md, "Masking" and "Crop syntax".

use std::path::PathBuf;

use clap::Args;

use crate::options::{CaptureOptions, CropOptions, MaskingOptions, Options, RenderOptions};

/// Masking and crop flags.
#[derive(Args, Debug, Clone, Default)]
pub struct StillArgs {
    #[command(flatten)]
    pub crop: CropArgs,
    #[command(flatten)]
    pub mask: MaskArgs,
}

/// Crop flags.
#[derive(Args, Debug, Clone, Default)]
pub struct CropArgs {
    /// Crop the top: Npx, Nch (rows), a number (px), or TEXT / TEXT:N (from the first row holding TEXT, moved N rows; the last ':' splits; prefix text: to force a pattern).
    #[arg(long, value_name = "CROP", allow_hyphen_values = true)]
    pub crop_top: Option<String>,
    /// Crop the bottom: as --crop-top (TEXT or TEXT:N keeps up to that row).
    #[arg(long, value_name = "CROP", allow_hyphen_values = true)]
    pub crop_bottom: Option<String>,
    /// Crop the left: Npx, Nch (columns) or a number (px).
    #[arg(long, value_name = "CROP", allow_hyphen_values = true)]
    pub crop_left: Option<String>,
    /// Crop the right: Npx, Nch (columns) or a number (px).
    #[arg(long, value_name = "CROP", allow_hyphen_values = true)]
    pub crop_right: Option<String>,
}

/// Masking flags.
#[derive(Args, Debug, Clone, Default)]
pub struct MaskArgs {
    /// Mask text matching PATTERN with `*` (a regex; `literal:TEXT` for exact text); repeatable.
    #[arg(long = "mask", value_name = "PATTERN")]
    pub mask: Vec<String>,
    /// Mask secrets the built-in rules find (tokens, keys, credential URLs, e-mail local parts,
    /// home directories…): true (default) or false. Masking is a safety net, not a guarantee.
    #[arg(long = "mask-auto", value_name = "BOOL", num_args = 0..=1,
          default_missing_value = "true", value_parser = parse_bool)]
    pub mask_auto: Option<bool>,
    /// More mask rules from a gitleaks-format TOML file (`[[rules]]` id/regex/secretGroup/keywords); repeatable.
    #[arg(long = "mask-rules", value_name = "FILE")]
    pub mask_rules: Vec<PathBuf>,
}

impl MaskArgs {
    /// The `render.masking` options these flags set (`None` when no flag was given).
    pub fn to_options(&self) -> Option<MaskingOptions> {
        let masking = MaskingOptions {
            auto: self.mask_auto,
            strings: (!self.mask.is_empty()).then(|| self.mask.clone()),
            rules: (!self.mask_rules.is_empty()).then(|| {
                self.mask_rules
                    .iter()
                    .map(|p| p.to_string_lossy().into_owned())
                    .collect()
            }),
        };
        (masking != MaskingOptions::default()).then_some(masking)
    }
}

impl StillArgs {
    /// The options these flags set (flags not given set nothing, so lower layers show).
    pub fn to_options(&self) -> Options {
        let c = &self.crop;
        let crop = CropOptions {
            top: c.crop_top.clone(),
            right: c.crop_right.clone(),
            bottom: c.crop_bottom.clone(),
            left: c.crop_left.clone(),
        };
        Options {
            render: self.mask.to_options().map(|m| RenderOptions {
                masking: Some(m),
                ..RenderOptions::default()
            }),
            capture: (crop != CropOptions::default()).then_some(CaptureOptions {
                crop: Some(crop),
                ..CaptureOptions::default()
            }),
            ..Options::default()
        }
    }
}

fn parse_bool(s: &str) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Ok(true),
        "false" | "no" | "off" | "0" => Ok(false),
        _ => Err(format!("'{s}' is not true or false")),
    }
}
