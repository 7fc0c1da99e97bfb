//! Placeholder until the demo account lands.

use crate::domain::time::Zone;
use crate::withings::upstream::{Reply, Upstream};
use crate::{Error, Result};

pub struct DemoUpstream;

impl DemoUpstream {
    pub fn new(_now: i64, _zone: Zone) -> DemoUpstream {
        DemoUpstream
    }
}

impl Upstream for DemoUpstream {
    fn post(&self, _path: &str, _form: &[(&str, String)], _bearer: Option<&str>) -> Result<Reply> {
        Err(Error::Unavailable("the demo account is not yet available in this build".into()))
    }
}
