"""A tiny hand-written game system, a parent catalogue and a chapter-like catalogue that links
it with ``importRootEntries`` (issue 17: a datasheet built for one catalogue is reused by the
others of the import): our own names and invented numbers, no rules text.

- "Scouts" (5-10 models) read no fact of the catalogue; their "Long rifle" has a skill the
  app cannot use and an ability it does not know (reported per catalogue), and they link an
  entry that is in none of the files (reported once per catalogue).
- "Captain" links the Scouts' "Long rifle" (read once per catalogue) and an "Enhancements"
  group (each catalogue knows who may bear it).
- "Chosen" are hidden when the Child catalogue is the primary one; "Veterans" cost more when
  it is (the only facts of the catalogue a datasheet reads).
"""

from __future__ import annotations

GST = b"""<?xml version="1.0" encoding="UTF-8"?>
<gameSystem xmlns="http://www.battlescribe.net/schema/gameSystemSchema" id="sys-s" name="S System"
  revision="1" battleScribeVersion="2.03" type="gameSystem">
  <costTypes><costType id="pts" name="pts" defaultCostLimit="-1"/></costTypes>
  <profileTypes>
    <profileType id="pt-unit" name="Unit"/>
    <profileType id="pt-ranged" name="Ranged Weapons"/>
  </profileTypes>
  <categoryEntries>
    <categoryEntry id="c-char" name="Character"/>
    <categoryEntry id="c-inf" name="Infantry"/>
    <categoryEntry id="c-fac-p" name="Faction: Parent"/>
    <categoryEntry id="c-fac-c" name="Faction: Child"/>
  </categoryEntries>
  <forceEntries>
    <forceEntry id="f-army" name="Army Roster"/>
  </forceEntries>
</gameSystem>
"""


def _unit_profile(pid: str, name: str) -> str:
    return f"""<profile id="{pid}" name="{name}" typeId="pt-unit" typeName="Unit">
        <characteristics>
          <characteristic name="M">6"</characteristic>
          <characteristic name="T">4</characteristic>
          <characteristic name="SV">3+</characteristic>
          <characteristic name="W">2</characteristic>
          <characteristic name="LD">6+</characteristic>
          <characteristic name="OC">1</characteristic>
        </characteristics>
      </profile>"""


PARENT = f"""<?xml version="1.0" encoding="UTF-8"?>
<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" id="cat-p" name="Parent"
  revision="3" battleScribeVersion="2.03" library="false" gameSystemId="sys-s"
  gameSystemRevision="1" type="catalogue">
  <selectionEntries>
    <selectionEntry id="e-scouts" name="Scouts" type="unit">
      <categoryLinks>
        <categoryLink id="cl-s1" targetId="c-fac-p" primary="false"/>
        <categoryLink id="cl-s2" targetId="c-inf" primary="false"/>
      </categoryLinks>
      <profiles>{_unit_profile("p-scout", "Scout")}</profiles>
      <selectionEntries>
        <selectionEntry id="e-scout" name="Scout" type="model">
          <constraints>
            <constraint id="k-s1" type="min" value="5" field="selections" scope="parent"/>
            <constraint id="k-s2" type="max" value="10" field="selections" scope="parent"/>
          </constraints>
          <costs><cost name="pts" typeId="pts" value="12"/></costs>
          <selectionEntries>
            <selectionEntry id="e-rifle" name="Long rifle" type="upgrade">
              <constraints>
                <constraint id="k-r1" type="min" value="1" field="selections" scope="parent"/>
                <constraint id="k-r2" type="max" value="1" field="selections" scope="parent"/>
              </constraints>
              <profiles>
                <profile id="p-rifle" name="Long rifle" typeId="pt-ranged"
                  typeName="Ranged Weapons">
                  <characteristics>
                    <characteristic name="Range">36"</characteristic>
                    <characteristic name="A">1</characteristic>
                    <characteristic name="BS">9+</characteristic>
                    <characteristic name="S">4</characteristic>
                    <characteristic name="AP">-2</characteristic>
                    <characteristic name="D">2</characteristic>
                    <characteristic name="Keywords">Heavy, Frobnicating</characteristic>
                  </characteristics>
                </profile>
              </profiles>
            </selectionEntry>
          </selectionEntries>
        </selectionEntry>
      </selectionEntries>
      <entryLinks>
        <entryLink id="l-missing" name="Lost kit" targetId="e-nowhere" type="selectionEntry"/>
      </entryLinks>
    </selectionEntry>
    <selectionEntry id="e-captain" name="Captain" type="model">
      <categoryLinks>
        <categoryLink id="cl-c1" targetId="c-fac-p" primary="false"/>
        <categoryLink id="cl-c2" targetId="c-char" primary="false"/>
        <categoryLink id="cl-c3" targetId="c-inf" primary="false"/>
      </categoryLinks>
      <profiles>{_unit_profile("p-captain", "Captain")}</profiles>
      <costs><cost name="pts" typeId="pts" value="80"/></costs>
      <entryLinks>
        <entryLink id="l-rifle" name="Long rifle" targetId="e-rifle" type="selectionEntry">
          <constraints>
            <constraint id="k-p1" type="min" value="1" field="selections" scope="parent"/>
          </constraints>
        </entryLink>
      </entryLinks>
      <selectionEntryGroups>
        <selectionEntryGroup id="g-enh" name="Enhancements">
          <selectionEntries>
            <selectionEntry id="e-shiny" name="Shiny Armour" type="upgrade">
              <costs><cost name="pts" typeId="pts" value="15"/></costs>
            </selectionEntry>
          </selectionEntries>
        </selectionEntryGroup>
      </selectionEntryGroups>
    </selectionEntry>
    <selectionEntry id="e-chosen" name="Chosen" type="model">
      <modifiers>
        <modifier type="set" value="true" field="hidden">
          <conditions>
            <condition type="instanceOf" value="1" field="selections" scope="primary-catalogue"
              childId="cat-c" shared="true"/>
          </conditions>
        </modifier>
      </modifiers>
      <categoryLinks>
        <categoryLink id="cl-h1" targetId="c-fac-p" primary="false"/>
      </categoryLinks>
      <profiles>{_unit_profile("p-chosen", "Chosen")}</profiles>
      <costs><cost name="pts" typeId="pts" value="40"/></costs>
    </selectionEntry>
    <selectionEntry id="e-veterans" name="Veterans" type="model">
      <modifiers>
        <modifier type="increment" value="10" field="pts">
          <conditions>
            <condition type="instanceOf" value="1" field="selections" scope="primary-catalogue"
              childId="cat-c" shared="true"/>
          </conditions>
        </modifier>
      </modifiers>
      <categoryLinks>
        <categoryLink id="cl-v1" targetId="c-fac-p" primary="false"/>
      </categoryLinks>
      <profiles>{_unit_profile("p-veteran", "Veteran")}</profiles>
      <costs><cost name="pts" typeId="pts" value="50"/></costs>
    </selectionEntry>
  </selectionEntries>
</catalogue>
""".encode()

CHILD = f"""<?xml version="1.0" encoding="UTF-8"?>
<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" id="cat-c" name="Child"
  revision="2" battleScribeVersion="2.03" library="false" gameSystemId="sys-s"
  gameSystemRevision="1" type="catalogue">
  <catalogueLinks>
    <catalogueLink id="cl-parent" name="Parent" targetId="cat-p" type="catalogue"
      importRootEntries="true"/>
  </catalogueLinks>
  <selectionEntries>
    <selectionEntry id="e-hero" name="Child Hero" type="model">
      <categoryLinks>
        <categoryLink id="cl-x1" targetId="c-fac-p" primary="false"/>
        <categoryLink id="cl-x2" targetId="c-fac-c" primary="false"/>
        <categoryLink id="cl-x3" targetId="c-char" primary="false"/>
      </categoryLinks>
      <profiles>{_unit_profile("p-hero", "Child Hero")}</profiles>
      <costs><cost name="pts" typeId="pts" value="90"/></costs>
    </selectionEntry>
  </selectionEntries>
</catalogue>
""".encode()

FILES: list[tuple[str, bytes]] = [
    ("S System.gst", GST),
    ("Parent.cat", PARENT),
    ("Child.cat", CHILD),
]
