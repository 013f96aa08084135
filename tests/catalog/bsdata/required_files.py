"""A tiny hand-written catalogue for the data's requirements (ruling D20), on the game system
of :mod:`interplay_files`: our own names and invented numbers, no rules text.

- "Boss" (a Character model) must pick an "Arm" ("Claw" or "Blade": ``min`` 1, no default);
  its "Sidearm" group is filled by its member's own ``min`` (nothing to pick); its "Hand"
  group (``min`` 1) names a default no member is (an id left behind by an edit, ruling D21).
- The "Oath" group (a shared group: "Oath of Iron", "Oath of Fire") is hidden unless the
  Detachment is "Oathsworn" or the bearer is a "Champion"; its ``min`` is set to 1 while the
  bearer has fewer than 1 of it (a Mark of Chaos' shape): required wherever it is shown.
- "Hunter's Mark" (15 points) is hidden on the Boss unless the Detachment is "Hunt", where its
  ``min`` is set to 1 (the shape of an Agents of the Imperium detachment's upgrades).
- "Banner" (on the Boss) is hidden while the Detachment is "Oathsworn" (ruling D21).
- "Champion" (a Character with the Champion keyword) links the Oath group, and so does the
  "Squad Leader" (one per unit) of the "Squad" (a Leader and 2-4 Troopers): the requirement
  binds that one model (ruling D21).
- A "Kit" package holds a "Grip" group with ``min`` 1: it binds only a unit taking the Kit.
"""

from __future__ import annotations

import re

from tests.catalog.bsdata.interplay_files import GST, _gun

_CAT = """<?xml version="1.0" encoding="UTF-8"?>
<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" id="cat-r" name="Required"
  revision="1" battleScribeVersion="2.03" library="false" gameSystemId="sys-i"
  gameSystemRevision="1" type="catalogue">
  <categoryEntries>
    <categoryEntry id="c-champ" name="Champion"/>
  </categoryEntries>
  <selectionEntries>
    <selectionEntry id="e-det" name="Detachment" type="upgrade">
      <selectionEntryGroups>
        <selectionEntryGroup id="g-det" name="Detachment Choice">
          <selectionEntries>
            <selectionEntry id="d-plain" name="Plain Host" type="upgrade"/>
            <selectionEntry id="d-oath" name="Oathsworn" type="upgrade"/>
            <selectionEntry id="d-hunt" name="Hunt" type="upgrade"/>
          </selectionEntries>
        </selectionEntryGroup>
      </selectionEntryGroups>
    </selectionEntry>
    <selectionEntry id="e-boss" name="Boss" type="model">
      <categoryLinks>
        <categoryLink id="cl1" targetId="c-char" primary="true"/>
        <categoryLink id="cl2" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <entryLinks>
        <entryLink id="l-boss-warlord" name="Warlord" targetId="e-warlord" type="selectionEntry"/>
        <entryLink id="l-boss-oath" name="Oath" targetId="g-oath" type="selectionEntryGroup"/>
      </entryLinks>
      <selectionEntries>
        <selectionEntry id="e-mark" name="Hunter's Mark" type="upgrade" hidden="true">
          <!--gun Hunter's Mark-->
          <constraints>
            <constraint id="k-mark-max" type="max" value="1" field="selections" scope="parent"/>
            <constraint id="k-mark-min" type="min" value="-1" field="selections" scope="parent"/>
          </constraints>
          <costs><cost name="pts" typeId="pts" value="15"/></costs>
          <modifierGroups>
            <modifierGroup type="and">
              <modifiers>
                <modifier type="set" value="false" field="hidden"/>
                <modifier type="set" value="1" field="k-mark-min"/>
              </modifiers>
              <conditions>
                <condition type="atLeast" value="1" field="selections" scope="roster"
                  childId="d-hunt" includeChildSelections="true"/>
              </conditions>
            </modifierGroup>
          </modifierGroups>
        </selectionEntry>
        <selectionEntry id="e-banner" name="Banner" type="upgrade">
          <!--gun Banner-->
          <constraints>
            <constraint id="k-banner" type="max" value="1" field="selections" scope="parent"/>
          </constraints>
          <modifiers>
            <modifier type="set" value="true" field="hidden">
              <conditions>
                <condition type="atLeast" value="1" field="selections" scope="roster"
                  childId="d-oath" includeChildSelections="true"/>
              </conditions>
            </modifier>
          </modifiers>
        </selectionEntry>
        <selectionEntry id="e-kit" name="Kit" type="upgrade">
          <constraints>
            <constraint id="k-kit" type="max" value="1" field="selections" scope="parent"/>
          </constraints>
          <costs><cost name="pts" typeId="pts" value="5"/></costs>
          <selectionEntryGroups>
            <selectionEntryGroup id="g-grip" name="Grip">
              <constraints>
                <constraint id="k-grip-min" type="min" value="1" field="selections"
                  scope="parent"/>
                <constraint id="k-grip-max" type="max" value="1" field="selections"
                  scope="parent"/>
              </constraints>
              <selectionEntries>
                <selectionEntry id="e-hook" name="Hook" type="upgrade">
                  <!--gun Hook-->
                </selectionEntry>
                <selectionEntry id="e-net" name="Net" type="upgrade">
                  <!--gun Net-->
                </selectionEntry>
              </selectionEntries>
            </selectionEntryGroup>
          </selectionEntryGroups>
        </selectionEntry>
      </selectionEntries>
      <selectionEntryGroups>
        <selectionEntryGroup id="g-arm" name="Arm">
          <constraints>
            <constraint id="k-arm-min" type="min" value="1" field="selections" scope="parent"/>
            <constraint id="k-arm-max" type="max" value="1" field="selections" scope="parent"/>
          </constraints>
          <selectionEntries>
            <selectionEntry id="e-claw" name="Claw" type="upgrade">
              <!--gun Claw-->
            </selectionEntry>
            <selectionEntry id="e-blade2" name="Blade" type="upgrade">
              <!--gun Blade-->
            </selectionEntry>
          </selectionEntries>
        </selectionEntryGroup>
        <selectionEntryGroup id="g-hand" name="Hand" defaultSelectionEntryId="e-gone">
          <constraints>
            <constraint id="k-hand-min" type="min" value="1" field="selections" scope="parent"/>
            <constraint id="k-hand-max" type="max" value="1" field="selections" scope="parent"/>
          </constraints>
          <selectionEntries>
            <selectionEntry id="e-fist" name="Fist" type="upgrade">
              <!--gun Fist-->
            </selectionEntry>
            <selectionEntry id="e-whip" name="Whip" type="upgrade">
              <!--gun Whip-->
            </selectionEntry>
          </selectionEntries>
        </selectionEntryGroup>
        <selectionEntryGroup id="g-side" name="Sidearm">
          <constraints>
            <constraint id="k-side-min" type="min" value="1" field="selections" scope="parent"/>
            <constraint id="k-side-max" type="max" value="2" field="selections" scope="parent"/>
          </constraints>
          <selectionEntries>
            <selectionEntry id="e-pistol" name="Pistol" type="upgrade">
              <!--gun Pistol-->
              <constraints>
                <constraint id="k-pistol" type="min" value="1" field="selections"
                  scope="parent"/>
              </constraints>
            </selectionEntry>
            <selectionEntry id="e-knife" name="Knife" type="upgrade">
              <!--gun Knife-->
            </selectionEntry>
          </selectionEntries>
        </selectionEntryGroup>
      </selectionEntryGroups>
      <costs><cost name="pts" typeId="pts" value="70"/></costs>
    </selectionEntry>
    <selectionEntry id="e-squad" name="Squad" type="unit">
      <categoryLinks>
        <categoryLink id="cl6" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <selectionEntries>
        <selectionEntry id="e-lead" name="Squad Leader" type="model">
          <constraints>
            <constraint id="k-lead-min" type="min" value="1" field="selections" scope="parent"/>
            <constraint id="k-lead-max" type="max" value="1" field="selections" scope="parent"/>
          </constraints>
          <entryLinks>
            <entryLink id="l-lead-oath" name="Oath" targetId="g-oath"
              type="selectionEntryGroup"/>
          </entryLinks>
        </selectionEntry>
        <selectionEntry id="e-trooper" name="Trooper" type="model">
          <constraints>
            <constraint id="k-tr-min" type="min" value="2" field="selections" scope="parent"/>
            <constraint id="k-tr-max" type="max" value="4" field="selections" scope="parent"/>
          </constraints>
        </selectionEntry>
      </selectionEntries>
      <costs><cost name="pts" typeId="pts" value="50"/></costs>
    </selectionEntry>
    <selectionEntry id="e-champ" name="Champion" type="model">
      <categoryLinks>
        <categoryLink id="cl3" targetId="c-char" primary="true"/>
        <categoryLink id="cl4" targetId="c-fac" primary="false"/>
        <categoryLink id="cl5" targetId="c-champ" primary="false"/>
      </categoryLinks>
      <entryLinks>
        <entryLink id="l-champ-warlord" name="Warlord" targetId="e-warlord"
          type="selectionEntry"/>
        <entryLink id="l-champ-oath" name="Oath" targetId="g-oath" type="selectionEntryGroup"/>
      </entryLinks>
      <costs><cost name="pts" typeId="pts" value="60"/></costs>
    </selectionEntry>
  </selectionEntries>
  <sharedSelectionEntryGroups>
    <selectionEntryGroup id="g-oath" name="Oath">
      <constraints>
        <constraint id="k-oath-min" type="min" value="0" field="selections" scope="parent"/>
        <constraint id="k-oath-max" type="max" value="1" field="selections" scope="parent"/>
      </constraints>
      <modifiers>
        <modifier type="set" value="true" field="hidden">
          <conditionGroups>
            <conditionGroup type="and">
              <conditions>
                <condition type="lessThan" value="1" field="selections" scope="roster"
                  childId="d-oath" includeChildSelections="true"/>
                <condition type="notInstanceOf" value="1" field="selections" scope="ancestor"
                  childId="c-champ"/>
              </conditions>
            </conditionGroup>
          </conditionGroups>
        </modifier>
        <modifier type="set" value="1" field="k-oath-min">
          <conditionGroups>
            <conditionGroup type="and">
              <conditions>
                <condition type="lessThan" value="1" field="selections" scope="parent"
                  childId="g-oath"/>
                <condition type="instanceOf" value="1" field="selections" scope="force"
                  childId="f-army"/>
              </conditions>
            </conditionGroup>
          </conditionGroups>
        </modifier>
      </modifiers>
      <selectionEntries>
        <selectionEntry id="e-iron" name="Oath of Iron" type="upgrade">
          <!--gun Oath of Iron-->
        </selectionEntry>
        <selectionEntry id="e-fire" name="Oath of Fire" type="upgrade">
          <!--gun Oath of Fire-->
        </selectionEntry>
      </selectionEntries>
    </selectionEntryGroup>
  </sharedSelectionEntryGroups>
</catalogue>
"""

CAT = re.sub(r"<!--gun ([^-]+)-->", _gun, _CAT).encode()

FILES = [("interplay.gst", GST), ("required.cat", CAT)]
