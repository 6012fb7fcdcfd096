//! The README's screenshot (`docs/demo.png`): the shop page with the widget's conversation and chips, as
//! headless Chromium draws it in a 1280×900 viewport.

use std::path::Path;

use interpane_e2e::{Doing, E2eError, E2eResult, check_eq};

use super::runner::Checks;
use super::spy_tally::{self, PageSpy};
use super::visit::Visit;

/// The size of the picture: the page's viewport, not the window around it.
const VIEWPORT: (u32, u32) = (1280, 900);

/// A short conversation that shows each kind of chip without scrolling the transcript: a search, an add, a
/// search over the limit (one search per 30 s here), and a checkout paid through pay.
const CONVERSATION: [(&str, &str); 4] = [
    ("search spicy", "completed"),
    ("add 2 diavola", "completed"),
    ("search vegan", "failed"),
    ("checkout", "completed"),
];

/// Has the conversation in a fresh shop and saves the picture to `path`; returns what the spy saw.
pub async fn run(visit: &Visit, checks: &mut Checks, path: &Path) -> PageSpy {
    checks.run("screenshot of the shop", take(visit, path)).await;
    spy_tally::read_page(&visit.session, "shop, screenshot").await
}

async fn take(v: &Visit, path: &Path) -> E2eResult<String> {
    v.open_shop("/?searchLimit=1&payDelayMs=300").await?;
    for (command, expected) in CONVERSATION {
        v.run_expecting(command, expected).await?;
    }
    // The last call's result may have made the transcript taller after it scrolled to its chip.
    v.session
        .execute(
            "const list = document.getElementById('transcript'); list.scrollTop = list.scrollHeight; return true;",
            vec![],
        )
        .await?;
    v.session.to_top().await?;
    size_viewport(v).await?;
    v.session.execute("window.scrollTo(0, 0); return true;", vec![]).await?;
    let png = v.session.client().screenshot().await.doing("taking a screenshot")?;
    let (width, height) =
        png_size(&png).ok_or_else(|| E2eError::Check(format!("the screenshot is not a PNG ({} bytes)", png.len())))?;
    check_eq((width, height), VIEWPORT, "the screenshot's size")?;
    if let Some(folder) = path.parent().filter(|folder| !folder.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder).map_err(|error| cannot_write(path, &error))?;
    }
    std::fs::write(path, &png).map_err(|error| cannot_write(path, &error))?;
    Ok(format!("{}: {width}×{height} PNG, {} KB", path.display(), png.len().div_ceil(1024)))
}

/// Resizes the window so that the page's viewport is [`VIEWPORT`] (the window's frame takes some room).
async fn size_viewport(v: &Visit) -> E2eResult<()> {
    let frame = v
        .session
        .execute("return [window.outerWidth - window.innerWidth, window.outerHeight - window.innerHeight];", vec![])
        .await?;
    let extra = |index: usize| {
        frame.get(index).and_then(serde_json::Value::as_u64).and_then(|n| u32::try_from(n).ok()).unwrap_or(0)
    };
    let (width, height) = VIEWPORT;
    v.session.client().set_window_size(width + extra(0), height + extra(1)).await.doing("resizing the window")?;
    let condition = format!("window.innerWidth === {width} && window.innerHeight === {height}");
    v.session.wait_for(&condition, super::visit::WAIT).await.map(drop)
}

fn cannot_write(path: &Path, error: &std::io::Error) -> E2eError {
    E2eError::Check(format!("cannot write the screenshot to {}: {error}", path.display()))
}

/// The width and height in a PNG's header, or `None` when `bytes` does not start like a PNG.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];
    if bytes.get(..8)? != SIGNATURE || bytes.get(12..16)? != b"IHDR" {
        return None;
    }
    let word = |at: usize| bytes.get(at..at + 4).and_then(|b| b.try_into().ok()).map(u32::from_be_bytes);
    Some((word(16)?, word(20)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = vec![0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n', 0, 0, 0, 13];
        bytes.extend_from_slice(b"IHDR");
        bytes.extend_from_slice(&width.to_be_bytes());
        bytes.extend_from_slice(&height.to_be_bytes());
        bytes
    }

    #[test]
    fn png_sizes_are_read_from_the_header_only_of_a_png() {
        let mut not_ihdr = header(1, 1);
        not_ihdr[12] = b'X';
        type Size = Option<(u32, u32)>;
        let cases: Vec<(Vec<u8>, Size)> = vec![
            (header(1280, 900), Some((1280, 900))),
            (header(1, 65_536), Some((1, 65_536))),
            (header(1280, 900)[..23].to_vec(), None),
            (not_ihdr, None),
            (b"GIF89a".to_vec(), None),
            (vec![], None),
        ];
        for (bytes, expected) in cases {
            assert_eq!(png_size(&bytes), expected, "bytes {bytes:?}");
        }
    }
}
