#![no_main]
//! The calls channel's messages on arbitrary UTF-8 (another page of the origin, or another script, posted them):
//! reading never panics; a status list reads back the same once written again; and what the session does with
//! any of them (answer, announce, fire `toolstatus`) never panics either.

use interpane_policy::calls_channel::{ChannelMessage, decode, encode_statuses};
use interpane_policy::session::{Config, Entropy, EntropyError, Input, Session};
use interpane_policy::{OriginList, WindowOrigin};
use libfuzzer_sys::fuzz_target;

struct Zeros;
impl Entropy for Zeros {
    fn fill(&mut self, bytes: &mut [u8]) -> Result<(), EntropyError> {
        bytes.fill(0);
        Ok(())
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let ChannelMessage::Statuses(calls) = decode(text) {
        assert_eq!(decode(&encode_statuses(&calls)), ChannelMessage::Statuses(calls));
    }
    let config = Config::new(WindowOrigin::from_browser("https://shop.example"), OriginList::empty());
    let mut session = Session::new(config, Box::new(Zeros));
    session.handle(Input::CallsChannel(text.to_owned()), 1);
    while session.poll_effect().is_some() {}
});
