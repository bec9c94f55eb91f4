//! The original's nested appearance keys (its config document v1,
//! shared/spec/console2svg-contract.md, "Config document"): `font: {family, size}`,
//! `size: {width, height}` and `header: {text, with-command, prompt}`, read beside our flat
//! keys (`font`, `fontsize`, `size`, `header`, `with-command`, `prompt`) and folded into them,
//! so the rest of the program only ever sees the flat form.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

use super::AppearanceOptions;
use crate::render::TextMode;

/// A value written either as text (a number counts as its text) or as a map `T`.
#[derive(Debug, Clone, PartialEq)]
pub enum TextOr<T> {
    /// The flat form: `font: "Fira Code"`, `size: 800x600`, `header: "$ make"`.
    Text(String),
    /// The original's nested form.
    Map(T),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for TextOr<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = TextOr<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("text or a map")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(TextOr::Text(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(TextOr::Text(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(TextOr::Text(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(TextOr::Text(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                // Through the struct's own Deserialize, so an unknown key is named.
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(TextOr::Map)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

impl<T: JsonSchema> JsonSchema for TextOr<T> {
    fn schema_name() -> Cow<'static, str> {
        format!("TextOr{}", T::schema_name()).into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let map = generator.subschema_for::<T>();
        schemars::json_schema!({
            "anyOf": [{"type": "string"}, {"type": "number"}, map]
        })
    }
}

/// `appearance.font` in the original's form.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct FontSpec {
    /// CSS font stack (`--font`).
    #[serde(default)]
    pub family: Option<String>,
    /// Font size, px, 1–500 (`--fontsize`).
    #[serde(default)]
    pub size: Option<f32>,
}

/// `appearance.size` in the original's form: the output's pixel size, aspect kept.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SizeSpec {
    /// Width, px.
    #[serde(default)]
    pub width: Option<f32>,
    /// Height, px.
    #[serde(default)]
    pub height: Option<f32>,
}

/// `appearance.header` in the original's form.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct HeaderSpec {
    /// Header text (`--header`).
    #[serde(default)]
    pub text: Option<String>,
    /// A header row with the prompt and the command (`-c`).
    #[serde(default)]
    pub with_command: Option<bool>,
    /// Header prompt (`--prompt`).
    #[serde(default)]
    pub prompt: Option<String>,
}

/// The `appearance:` section as written: our flat keys, with `font`, `size` and `header` also
/// taking the original's maps. Folded into [`AppearanceOptions`] by `TryFrom`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
#[schemars(title = "AppearanceOptions")]
pub struct AppearanceInput {
    /// Theme ids or theme files, later wins (`-t`).
    #[serde(default)]
    theme: Option<Vec<String>>,
    /// Window style or frame file (`-d`).
    #[serde(default)]
    window: Option<String>,
    /// Default foreground, `#rgb`/`#rrggbb` (`--forecolor`).
    #[serde(default)]
    forecolor: Option<String>,
    /// Terminal background, `#rgb`/`#rrggbb` (`--backcolor`).
    #[serde(default)]
    backcolor: Option<String>,
    /// One colour, two colours (a gradient), or an image file (`--background`).
    #[serde(default)]
    background: Option<Vec<String>>,
    /// 0–1 (`--opacity`).
    #[serde(default)]
    opacity: Option<f32>,
    /// px (`--padding`).
    #[serde(default)]
    padding: Option<f32>,
    /// px (`--margin`).
    #[serde(default)]
    margin: Option<f32>,
    /// px (`--pc-padding`).
    #[serde(default)]
    pc_padding: Option<f32>,
    /// CSS font stack (`--font`), or the original's `{family, size}`.
    #[serde(default)]
    font: Option<TextOr<FontSpec>>,
    /// Font size, px (`--fontsize`).
    #[serde(default)]
    fontsize: Option<f32>,
    /// Row height, 1–2 times the font's (`--line-height`).
    #[serde(default)]
    line_height: Option<f32>,
    /// Output pixel size, aspect kept: `W`, `WxH`, `Wx*`, `*xH` (`--size`), or the
    /// original's `{width, height}`.
    #[serde(default)]
    size: Option<TextOr<SizeSpec>>,
    /// A header row with the prompt and the command (`-c`).
    #[serde(default)]
    with_command: Option<bool>,
    /// Header text (`--header`), or the original's `{text, with-command, prompt}`.
    #[serde(default)]
    header: Option<TextOr<HeaderSpec>>,
    /// Header prompt (`--prompt`).
    #[serde(default)]
    prompt: Option<String>,
    /// Draw the cursor (`--no-cursor` sets false).
    #[serde(default)]
    cursor: Option<bool>,
    /// Bold text in colours 0–7 uses 8–15 (`--bold-is-bright`).
    #[serde(default)]
    bold_is_bright: Option<bool>,
    /// Embed font subsets (`--no-embed-font` sets false).
    #[serde(default)]
    embed_font: Option<bool>,
    /// `text` or `outlines` (`--text-mode`).
    #[serde(default)]
    text_mode: Option<TextMode>,
}

/// One value from either of two keys; both set is an error naming them.
fn one_of<T>(flat: Option<T>, nested: Option<T>, keys: &str) -> Result<Option<T>, String> {
    match (flat, nested) {
        (Some(_), Some(_)) => Err(format!("appearance: {keys} are both set; keep one")),
        (a, b) => Ok(a.or(b)),
    }
}

impl TryFrom<AppearanceInput> for AppearanceOptions {
    type Error = String;

    fn try_from(a: AppearanceInput) -> Result<AppearanceOptions, String> {
        let (font, font_size) = match a.font {
            None => (None, None),
            Some(TextOr::Text(family)) => (Some(family), None),
            Some(TextOr::Map(f)) => (f.family, f.size),
        };
        let size = match a.size {
            None => None,
            Some(TextOr::Text(s)) => Some(s),
            Some(TextOr::Map(SizeSpec { width, height })) => Some(match (width, height) {
                (Some(w), Some(h)) => format!("{w}x{h}"),
                (Some(w), None) => format!("{w}"),
                (None, Some(h)) => format!("*x{h}"),
                (None, None) => return Err("appearance.size: give width, height or both".into()),
            }),
        };
        let (header, with_command, prompt) = match a.header {
            None => (None, None, None),
            Some(TextOr::Text(t)) => (Some(t), None, None),
            Some(TextOr::Map(h)) => (h.text, h.with_command, h.prompt),
        };
        Ok(AppearanceOptions {
            theme: a.theme,
            window: a.window,
            forecolor: a.forecolor,
            backcolor: a.backcolor,
            background: a.background,
            opacity: a.opacity,
            padding: a.padding,
            margin: a.margin,
            pc_padding: a.pc_padding,
            font,
            fontsize: one_of(a.fontsize, font_size, "fontsize and font.size")?,
            line_height: a.line_height,
            size,
            with_command: one_of(
                a.with_command,
                with_command,
                "with-command and header.with-command",
            )?,
            header,
            prompt: one_of(a.prompt, prompt, "prompt and header.prompt")?,
            cursor: a.cursor,
            bold_is_bright: a.bold_is_bright,
            embed_font: a.embed_font,
            text_mode: a.text_mode,
        })
    }
}
